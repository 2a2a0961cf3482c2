/*
 * A finished game's analysis on its viewer page (docs/viewer.md, "Analysis").
 *
 * Under the table: a button "Analyse this game" (POST /api/analysis/{game}), a progress
 * bar while the server works (GET polled), then, at each step, the analysed decision
 * made there: the value before the move for the mover's team, the chosen action's cost
 * in colour, the best choice (its card ringed in the mover's hand), and every choice the
 * analysis weighed, with its error when sampled. The hand table's par column is filled.
 * Every decision comes in one shape, whatever its kind (a card played, a bid...), so
 * this file shows any of them. It applies no rule: the server's analysis says it all.
 *
 * Colours (the legend says so too): cost 0 green; under SMALL_COST points amber; from
 * SMALL_COST on red.
 */
"use strict";

(function () {
  const SMALL_COST = 2;
  const POLL_MS = 600;
  const VERB = { play: "plays", bid: "bids", trump: "names trump", discard: "discards", pickup: "picks up", stock: "at the stock:" };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // "green", "amber" or "red": how much a choice cost (the legend's thresholds)
  function costColour(cost) {
    if (cost <= 0) return "green";
    return cost < SMALL_COST ? "amber" : "red";
  }

  function points(value) {
    const rounded = Math.round(value * 100) / 100;
    return `${rounded} point${rounded === 1 ? "" : "s"}`;
  }

  function withError(value, error) {
    const shown = String(Math.round(value * 100) / 100);
    return error === null || error === undefined ? shown : `${shown} \u00b1 ${Math.round(error * 100) / 100}`;
  }

  class Analysis {
    constructor(root, api) {
      this.game = root.dataset.game;
      this.api = api;
      this.byStep = new Map();
      this.status = el("div", { class: "pv-analysis-status", "data-testid": "analysis-status", role: "status" });
      this.stepNode = el("div", { class: "pv-analysis-step", "data-testid": "analysis-step" });
      this.panel = el("section", { class: "pv-analysis", "data-testid": "analysis" },
        el("h3", {}, "Analysis"), this.status, this.stepNode, legendNode());
      const main = root.querySelector(".pv-main");
      (main || root).append(this.panel);
      this.ask("GET");
    }

    url() {
      return `/api/analysis/${this.game.split("/").map(encodeURIComponent).join("/")}`;
    }

    ask(method) {
      fetch(this.url(), { method, headers: { Accept: "application/json" } })
        .then((response) => response.json().then((body) => [response, body]))
        .then(([response, body]) => this.answered(response, body))
        .catch(() => this.offer("The analysis could not be reached: try again."));
    }

    answered(response, body) {
      if (!response.ok) {
        const later = response.headers.get("Retry-After");
        return this.offer(`${body.detail || response.statusText}${later ? ` (ask again in ${later} s)` : ""}`);
      }
      if (body.state === "done") return this.show(body.analysis);
      if (body.state === "queued" || body.state === "running") return this.progress(body);
      if (body.state === "failed") return this.offer(body.detail);
      return this.offer(null);
    }

    // the button, and why the last attempt did not give an analysis, if it failed
    offer(message) {
      const button = el("button", { type: "button", class: "pv-analyse", "data-testid": "analyse", onclick: () => this.start(button) }, "Analyse this game");
      this.status.replaceChildren(button, " each card against the best with every card seen, and each hand's par",
        message ? el("div", { class: "pv-analysis-error", "data-testid": "analysis-error" }, message) : null);
    }

    start(button) {
      button.disabled = true;
      this.ask("POST");
    }

    progress(body) {
      const total = Math.max(1, body.total);
      const bar = el("progress", { max: total, value: body.done, "data-testid": "analysis-progress", "aria-label": "analysis progress" });
      const text = body.state === "queued" ? "waiting for the server\u2026" : `analysing: ${body.done} of ${body.total} hands`;
      this.status.replaceChildren(bar, " ", el("span", {}, text));
      window.setTimeout(() => this.ask("GET"), POLL_MS);
    }

    show(analysis) {
      this.byStep = new Map(analysis.decisions.map((decision) => [decision.step, decision]));
      const costly = analysis.decisions.filter((decision) => decision.cost > 0).length;
      this.status.replaceChildren(el("span", { "data-testid": "analysis-done" },
        `${analysis.decisions.length} decisions analysed, ${costly} of them costly; each step shows its own.`));
      fillPars(analysis.pars);
      this.api.onDraw((viewer) => this.draw(viewer));
    }

    // whether the current view may show a decision: one seat's view shows that seat's
    // only, since the analysis names the cards of every hand
    visible(viewer, decision) {
      return viewer.mode === "all" || viewer.mode === decision.seat;
    }

    draw(viewer) {
      const decision = this.byStep.get(viewer.position);
      this.markNarrative(viewer);
      if (!decision) {
        this.stepNode.replaceChildren(el("span", { class: "muted" }, "no analysed decision at this step"));
        return;
      }
      if (!this.visible(viewer, decision)) {
        this.stepNode.replaceChildren(el("span", { class: "muted" }, `seat ${decision.seat}'s decision: its analysis names every hand's cards, so it shows in the everything view or seat ${decision.seat}'s`));
        return;
      }
      const colour = costColour(decision.cost);
      const team = viewer.teamOf(decision.seat);
      const exact = decision.samples === null || decision.samples === undefined;
      this.stepNode.replaceChildren(
        el("div", {},
          el("strong", {}, `seat ${decision.seat} ${VERB[decision.kind] || decision.kind} ${decision.chosen}`), " ",
          el("span", { class: `pv-cost ${colour}`, "data-testid": "analysis-cost", "data-colour": colour },
            decision.cost > 0 ? `costs ${withError(decision.cost, decision.error)} points` : "best"),
          decision.cost > 0 ? [" \u00b7 best: ", el("strong", { "data-testid": "analysis-best" }, decision.best)] : null),
        el("div", { "data-testid": "analysis-value" },
          `value before the move: ${points(decision.value)} for team ${team}`,
          exact ? " (double-dummy, exact)" : ` (${decision.samples} samples)`),
        el("div", { class: "pv-choices", "data-testid": "analysis-choices" },
          decision.choices.map((choice) =>
            el("span", { class: `choice${choice.action === decision.chosen ? " chosen" : ""}${choice.value >= decision.value ? " best" : ""}` },
              `${choice.action} ${withError(choice.value, choice.error)}`))));
      if (decision.kind === "play") this.markCards(viewer, decision, colour);
    }

    // the card played (in the trick) in its cost's colour, the best cards still in hand ringed
    markCards(viewer, decision, colour) {
      const played = viewer.root.querySelector(`[data-testid=trick-card-${decision.seat}] .card[data-card="${decision.chosen}"]`);
      if (played) played.classList.add("pv-played", colour);
      const hand = viewer.root.querySelector(`[data-testid=hand-${decision.seat}]`);
      for (const choice of decision.choices) {
        if (choice.value < decision.value || choice.action === decision.chosen || !hand) continue;
        for (const card of hand.querySelectorAll(`.card[data-card="${choice.action}"]`)) {
          card.classList.add("pv-best");
          card.setAttribute("data-testid", "best-card");
          card.title += " \u00b7 a best card here";
        }
      }
    }

    // each costly step of the hand's list gets its cost, in colour
    markNarrative(viewer) {
      for (const item of viewer.narrative.querySelectorAll("li[data-step]")) {
        const decision = this.byStep.get(Number(item.dataset.step));
        if (!decision || decision.cost <= 0 || !this.visible(viewer, decision)) continue;
        item.append(el("span", { class: `pv-cost ${costColour(decision.cost)}`, title: "points lost against the best choice" }, `\u2212${withError(decision.cost, null)}`));
      }
    }
  }

  function fillPars(pars) {
    for (const par of pars) {
      const row = document.querySelector(`[data-testid=hand-row][data-hand="${par.hand}"]`);
      const cell = row && row.querySelector("[data-testid=hand-par]");
      if (!cell) continue;
      cell.title = par.made ? "the bid is made with best play" : "the bid is set with best play";
      cell.replaceChildren(el("span", { class: "team0" }, par.taken[0]), " \u2013 ", el("span", { class: "team1" }, par.taken[1]),
        el("span", { class: "par-result wide" }, ` ${par.made ? "made" : "set"}`));
    }
    for (const node of document.querySelectorAll(".pv-par")) node.hidden = false;
  }

  function legendNode() {
    const item = (mark, text) => el("span", { class: "item" }, mark, " ", text);
    return el("div", { class: "pv-legend", "data-testid": "analysis-legend" },
      item(el("span", { class: "pv-cost green" }, "best"), "cost 0: a best choice"),
      item(el("span", { class: "pv-cost amber" }, "\u22121"), `cost under ${SMALL_COST} points`),
      item(el("span", { class: "pv-cost red" }, "\u22123"), `cost ${SMALL_COST} points or more`),
      item(el("span", { class: "card pv-best pv-sample" }), "a best card left in hand"),
      item(el("span", {}, "value"), "the mover's team's points in the hand from here, with best play"));
  }

  function boot() {
    const root = document.getElementById("pitch-viewer");
    if (!root || !window.pitchViewer) return;
    new Analysis(root, window.pitchViewer);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
