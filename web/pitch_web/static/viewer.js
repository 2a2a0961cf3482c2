/*
 * Pitch Arena game viewer: draws a game's timeline (docs/viewer.md) as a card table.
 *
 * The timeline comes from the server (pitch_web.timeline), which replays the record with
 * the rules engine: this file only draws what each step says and never applies a rule.
 * It boots from <script type="application/json" id="timeline-data"> into
 * <div id="pitch-viewer">, and the position and view mode live in the URL hash
 * (#step=N&view=all|0|1|2|3, and &result=hidden in the spoiler-free mode), so a link
 * opens the same moment. Steps are numbered from 0 (the first deal) everywhere: on the
 * screen, in the link and in the hand's list. Without a hash it opens at the first step,
 * or where the root element's data-hand and data-view say.
 *
 * API for live games (window.pitchViewer, set once the viewer is mounted):
 *   pitchViewer.append(steps, toAct)  add steps, as timeline(partial)["steps"][n:] gives
 *                               them, and who acts next (the header's to_act); in follow
 *                               mode the table moves to the newest one
 *   pitchViewer.finish(header)  the game is over: header is the finished timeline's header
 *                               (its result, faults); follow stops at the last step
 *   pitchViewer.appendLogs(lines)  bot log lines, as the timeline's "logs" entries
 *   pitchViewer.setLogs(lines)     all the log lines so far (a live game's, which move to their steps)
 *   pitchViewer.follow(on)      follow the newest step (true) or stay put (false)
 *   pitchViewer.goto(index)     show the table after step `index`
 *   pitchViewer.onDraw(hook)    call hook(viewer) after every drawing (and once now): a
 *                               page's own additions to the table (analysis.js)
 *   pitchViewer.length, pitchViewer.position, pitchViewer.following
 * A page can also mount a viewer itself: PitchViewer.mount(element, timeline).
 *
 * Keys: Left/Right a decision, Up/Down (or Shift+Left/Right) a trick, PageUp/PageDown
 * (or [ and ]) a hand, Home/End the start/end, Space play/pause, + and - speed,
 * A everything, 0-3 one seat's view, F follow the newest step.
 */
"use strict";

(function () {
  const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const RANK_SHOWN = { T: "10" };
  const DISPLAY_SUITS = "SHCD"; // black and red alternate
  const RANKS = "23456789TJQKA";
  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
  const STEP_MS = 900;
  const HIDE_RESULT_KEY = "pitch-viewer-hide-result";
  const DECISION_VERB = { bid: "bid", trump: "name trump", discard: "discard", pickup: "pick up", stock: "look at the stock", play: "play" };
  const TERMINATIONS = {
    target: "reached the target",
    moon: "shot the moon",
    hand_cap: "hand cap reached",
    forfeit: "forfeit",
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // --- cards ---------------------------------------------------------------------------

  function cardLabel(name) {
    if (name === "JK") return "joker";
    return `${RANK_SHOWN[name[0]] || name[0]} of ${SUIT_NAME[name[1]]}`;
  }

  function cardNode(name, table) {
    const points = table && table.points ? table.points[name] : 0;
    const pip = points ? el("span", { class: "pip", "aria-hidden": "true" }) : null;
    if (name === "JK") {
      return el("span", { class: "card joker", "data-card": name, title: "joker" + (points ? `, ${points} point${points > 1 ? "s" : ""}` : "") },
        el("span", { class: "rank" }, "JK"), el("span", { class: "suit" }, "\u2605"), pip);
    }
    const suit = name[1];
    const classes = ["card", suit === "D" || suit === "H" ? "red" : "black"];
    if (table && table.order) classes.push(table.order.includes(name) ? "trump" : "dead");
    return el(
      "span",
      { class: classes.join(" "), "data-card": name, title: cardLabel(name) + (points ? `, ${points} point${points > 1 ? "s" : ""}` : "") },
      el("span", { class: "rank" }, RANK_SHOWN[name[0]] || name[0]),
      el("span", { class: "suit" }, SUIT_SYMBOL[suit]),
      pip
    );
  }

  function cardBack() {
    return el("span", { class: "card back", "aria-hidden": "true" });
  }

  function sortCards(cards, order) {
    const rank = (name) => {
      if (order) {
        const position = order.indexOf(name);
        if (position >= 0) return position;
      }
      if (name === "JK") return 1000;
      return 100 + DISPLAY_SUITS.indexOf(name[1]) * 20 - RANKS.indexOf(name[0]);
    };
    return [...cards].sort((a, b) => rank(a) - rank(b));
  }

  function cardsNode(cards, table, testid) {
    const list = sortCards(cards, table && table.order);
    return el("span", { class: "cards", "data-testid": testid }, list.length ? list.map((c) => cardNode(c, table)) : el("span", { class: "none" }, "\u2013"));
  }

  function cardsText(cards) {
    return cards.length ? cards.join(" ") : "nothing";
  }

  function removeCard(hand, name) {
    const index = hand.indexOf(name);
    if (index >= 0) hand.splice(index, 1);
  }

  // --- the table after a step --------------------------------------------------------------

  function emptyTable() {
    const four = () => [[], [], [], []];
    return {
      hand: 0, dealer: null, scores: [0, 0], hands: four(), bids: [null, null, null, null],
      contract: null, trump: null, order: null, points: null, out: four(), discards: four(),
      picked: four(), centre: [], fill: null, pile: [], looker: null, trick: [],
      trickDone: null, tricks: 0, taken: [0, 0], scored: null, end: null, faults: [], step: null,
    };
  }

  function applyStep(table, step) {
    table.step = step;
    switch (step.k) {
      case "deal":
        Object.assign(table, emptyTable(), {
          step, hand: step.hand, dealer: step.dealer, scores: step.scores.slice(),
          hands: step.hands.map((cards) => cards.slice()),
        });
        return;
      case "bid":
        table.bids[step.s] = step.bid;
        if (step.contract) table.contract = step.contract;
        break;
      case "trump":
        table.trump = step.trump;
        table.order = step.order;
        table.points = step.points;
        table.out = step.out;
        break;
      case "discard":
        table.discards[step.s] = step.cards;
        break;
      case "pickup":
        table.picked[step.s] = step.cards;
        break;
      case "stock":
        table.looker = step.looker;
        table.pile = step.pile ? table.pile.slice(table.pile.length - step.pile) : [];
        break;
      case "play":
        if (table.trickDone) {
          table.trick = [];
          table.trickDone = null;
        }
        removeCard(table.hands[step.s], step.card);
        table.trick.push([step.s, step.card]);
        if (step.trick) {
          table.trickDone = step.trick;
          table.tricks = step.trick.number;
        }
        break;
      case "fault":
        table.faults.push(step);
        break;
      case "end":
        table.end = step;
        table.scores = step.scores.slice();
        break;
    }
    if (step.hands) for (const [seat, cards] of Object.entries(step.hands)) table.hands[seat] = cards.slice();
    if (step.centre) table.centre = step.centre;
    if (step.fill) {
      table.fill = step.fill;
      table.pile = step.pile_cards.slice();
      table.looker = step.looker;
    }
    if (step.taken) table.taken = step.taken;
    if (step.scored) {
      table.scored = step.scored;
      table.scores = step.scored.scores.slice();
    }
  }

  // --- the hand's tricks as a grid (Bridge Base Online's trick review) -----------------

  const MOST_TRICKS = 6; // a seat holds at most six trumps: the grid keeps room for six rows

  // The tricks of the hand whose deal is step `start`, up to step `position`: each one's
  // plays ([seat, card] in order), its leader (who played first), its last step so far,
  // and, once complete, `done`: the timeline's trick (winner, points, teams).
  function handTricks(steps, start, position) {
    const tricks = [];
    let open = null;
    for (let i = start; i <= position && i < steps.length; i++) {
      const step = steps[i];
      if (step.k !== "play") continue;
      if (!open) {
        open = { number: tricks.length + 1, plays: [], leader: step.s, last: i, done: null };
        tricks.push(open);
      }
      open.plays.push([step.s, step.card]);
      open.last = i;
      if (step.trick) {
        open.done = step.trick;
        open = null;
      }
    }
    return tricks;
  }

  // The grid of `tricks`: a row per trick, a column per seat, the leader's card marked ▸
  // and the winner's ringed in its team's colour, then who won and the points each team
  // took. A row's click goes to its trick's last step (`go(step)`). `current` marks the
  // trick on the table ("unfinished" once the game is over: a forfeit); the rows not
  // played yet stay empty, so the grid never changes size.
  function trickGridNode(tricks, table, viewer, current, go) {
    const seats = [0, 1, 2, 3];
    const teamText = (team, points) => el("span", { class: `pts team${team}`, title: `team ${team} takes ${points} point${points === 1 ? "" : "s"}` },
      el("span", { class: "wide" }, `team ${team} `), el("span", { class: "narrow" }, `t${team} `), `+${points}`);
    const head = el("tr", {},
      el("th", { class: "num", title: "trick" }, "#"),
      seats.map((seat) => el("th", { class: `team${viewer.teamOf(seat)}`, title: `seat ${seat}: ${viewer.playerName(seat)}` },
        el("span", { class: "wide" }, "seat "), String(seat))),
      el("th", {}, "won by"), el("th", {}, "points"));
    const rows = tricks.map((trick) => {
      const cards = new Map(trick.plays);
      const done = trick.done;
      const cell = (seat) => {
        if (!cards.has(seat)) return el("td", { class: "card-cell" }, done ? el("span", { class: "none", title: `seat ${seat} held no trump` }, "\u2013") : null);
        const classes = ["card-cell", seat === trick.leader ? "lead" : "", done && done.winner === seat ? `won team${viewer.teamOf(seat)}` : ""];
        return el("td", { class: classes.join(" ").trim(), "data-seat": seat },
          seat === trick.leader ? el("span", { class: "lead-mark", title: "led" }, "\u25b8") : null, cardNode(cards.get(seat), table));
      };
      const teams = done ? (done.teams || [0, 0]).map((points, team) => [team, points]).filter(([, points]) => points > 0) : [];
      return el("tr", {
        class: trick === current ? "current" : "", "data-testid": "trick-row", "data-trick": trick.number, "data-step": trick.last,
        "data-leader": trick.leader, "data-winner": done ? done.winner : null, onclick: () => go(trick.last),
      },
      el("td", { class: "num" }, el("button", { type: "button", title: `trick ${trick.number}: go to its last step (${trick.last})` }, String(trick.number))),
      seats.map(cell),
      el("td", { "data-testid": "trick-row-winner" }, done ? el("span", { class: `team${viewer.teamOf(done.winner)}` }, el("span", { class: "wide" }, "seat "), String(done.winner)) : el("span", { class: "none" }, table.end ? "unfinished" : "playing")),
      el("td", { "data-testid": "trick-row-points" }, done ? (teams.length ? teams.flatMap(([team, points], n) => [n ? ", " : null, teamText(team, points)]) : el("span", { class: "none" }, "0")) : null));
    });
    const blanks = Array.from({ length: Math.max(0, MOST_TRICKS - rows.length) }, () => el("tr", { class: "blank", "aria-hidden": "true" }, el("td", { colspan: 7 }, "\u00a0")));
    return el("div", { class: "pv-tricks-box" },
      el("table", { class: "pv-tricks-grid" }, el("thead", {}, head), el("tbody", {}, rows, blanks)),
      tricks.length ? null : el("p", { class: "pv-tricks-none", "data-testid": "trick-grid-empty" }, table.hand ? "no trick played yet in this hand" : "no hand dealt yet"));
  }

  // --- the viewer ------------------------------------------------------------------------

  class Viewer {
    constructor(root, timeline) {
      this.root = root;
      this.header = timeline.header;
      this.steps = [];
      this.handStarts = []; // [step index, hand number]
      this.logs = [];
      this.position = 0;
      this.mode = "all";
      this.speed = 2;
      this.timer = null;
      this.following = false;
      this.hideResult = storedHideResult();
      this.toAct = timeline.header.to_act || null; // who decides next, in a game going on
      this.drawHooks = []; // a page's own additions, drawn after the viewer's (onDraw)
      this.build();
      this.appendSteps(timeline.steps || [], false);
      this.appendLogs(timeline.logs || [], false);
      this.applyDefaults(root.dataset);
      this.readHash(false);
      window.addEventListener("hashchange", () => this.readHash(true));
      document.addEventListener("keydown", (event) => this.onKey(event));
      this.draw();
    }

    // --- data --------------------------------------------------------------------------

    get finished() {
      const last = this.steps[this.steps.length - 1];
      return Boolean(this.header.result) || Boolean(last && last.k === "end");
    }

    appendSteps(steps, redraw = true, toAct = undefined) {
      if (toAct !== undefined) this.toAct = toAct;
      for (const step of steps) {
        if (step.k === "deal") this.handStarts.push([this.steps.length, step.hand]);
        this.steps.push(step);
      }
      this.fillHandMenu();
      this.drawHandMarks();
      if (this.following) this.position = Math.max(0, this.steps.length - 1);
      if (redraw) this.draw();
    }

    appendLogs(lines, redraw = true) {
      this.logs.push(...lines);
      if (redraw) this.draw();
    }

    setLogs(lines) {
      this.logs = lines.slice();
      this.draw();
    }

    finish(header) {
      if (header) this.header = header;
      this.toAct = null;
      if (this.following) this.position = Math.max(0, this.steps.length - 1);
      this.following = false;
      this.draw();
    }

    handStartOf(index) {
      let start = null;
      for (const [position] of this.handStarts) {
        if (position > index) break;
        start = position;
      }
      return start;
    }

    tableAt(index) {
      const table = emptyTable();
      const start = this.handStartOf(index);
      for (let i = start === null ? 0 : start; i <= index && i < this.steps.length; i++) {
        applyStep(table, this.steps[i]);
      }
      return table;
    }

    // --- moving ------------------------------------------------------------------------

    goto(index) {
      const last = Math.max(0, this.steps.length - 1);
      this.position = Math.min(Math.max(0, index), last);
      if (this.position < last) this.following = false;
      this.draw();
    }

    nextTrick() {
      for (let i = this.position + 1; i < this.steps.length; i++) {
        if (this.steps[i].trick || this.steps[i].k === "deal" || this.steps[i].k === "end") return this.goto(i);
      }
      this.goto(this.steps.length - 1);
    }

    previousTrick() {
      for (let i = this.position - 1; i >= 0; i--) {
        if (this.steps[i].trick || this.steps[i].k === "deal") return this.goto(i);
      }
      this.goto(0);
    }

    nextHand() {
      const next = this.handStarts.find(([position]) => position > this.position);
      this.goto(next ? next[0] : this.steps.length - 1);
    }

    previousHand() {
      const start = this.handStartOf(this.position);
      if (start !== null && start < this.position) return this.goto(start);
      const earlier = this.handStartOf((start === null ? this.position : start) - 1);
      this.goto(earlier === null ? 0 : earlier);
    }

    gotoHand(number) {
      const found = this.handStarts.find(([, hand]) => hand === number);
      if (found) this.goto(found[0]);
    }

    togglePlay() {
      if (this.timer) return this.pause();
      if (this.position >= this.steps.length - 1 && !this.following) this.position = 0;
      this.timer = window.setInterval(() => this.tick(), STEP_MS / SPEEDS[this.speed]);
      this.draw();
    }

    pause() {
      window.clearInterval(this.timer);
      this.timer = null;
      this.draw();
    }

    tick() {
      if (this.position < this.steps.length - 1) {
        this.position += 1;
        this.draw();
      } else if (this.finished) {
        this.pause();
      }
    }

    setSpeed(index) {
      this.speed = Math.min(Math.max(0, index), SPEEDS.length - 1);
      if (this.timer) {
        this.pause();
        this.togglePlay();
      }
      this.draw();
    }

    setMode(mode) {
      this.mode = mode === "all" ? "all" : Number(mode);
      this.draw();
    }

    follow(on) {
      this.following = Boolean(on);
      if (this.following) this.position = Math.max(0, this.steps.length - 1);
      this.draw();
    }

    onKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      // the timeline (a range input) and the checkboxes take the viewer's keys (but a
      // checkbox keeps Space); text fields keep theirs
      const typed = target && target.tagName === "INPUT" && !["range", "checkbox"].includes(target.type);
      if (typed || (target && target.tagName === "TEXTAREA")) return;
      if (target && target.type === "checkbox" && event.key === " ") return;
      const actions = {
        ArrowRight: () => (event.shiftKey ? this.nextTrick() : this.goto(this.position + 1)),
        ArrowLeft: () => (event.shiftKey ? this.previousTrick() : this.goto(this.position - 1)),
        ArrowDown: () => this.nextTrick(),
        ArrowUp: () => this.previousTrick(),
        PageDown: () => this.nextHand(),
        PageUp: () => this.previousHand(),
        "]": () => this.nextHand(),
        "[": () => this.previousHand(),
        Home: () => this.goto(0),
        End: () => this.goto(this.steps.length - 1),
        " ": () => this.togglePlay(),
        "+": () => this.setSpeed(this.speed + 1),
        "=": () => this.setSpeed(this.speed + 1),
        "-": () => this.setSpeed(this.speed - 1),
        a: () => this.setMode("all"),
        f: () => this.follow(!this.following),
        0: () => this.setMode(0),
        1: () => this.setMode(1),
        2: () => this.setMode(2),
        3: () => this.setMode(3),
      };
      const action = actions[event.key];
      if (!action) return;
      if (target && target.tagName === "SELECT" && event.key.startsWith("Arrow")) return;
      event.preventDefault();
      action();
    }

    // --- the URL -----------------------------------------------------------------------

    readHash(redraw) {
      const params = new URLSearchParams(window.location.hash.slice(1));
      const view = params.get("view");
      if (view === "all" || ["0", "1", "2", "3"].includes(view)) this.mode = view === "all" ? "all" : Number(view);
      if (params.has("result")) this.setHideResult(params.get("result") === "hidden", false);
      // #step=end: the last step (a live page opened after its game ended)
      const step = params.get("step") === "end" ? this.steps.length - 1 : Number.parseInt(params.get("step"), 10);
      if (Number.isInteger(step)) this.position = Math.min(Math.max(0, step), Math.max(0, this.steps.length - 1));
      // a link to an earlier step (a hand table's row on a live page) stops following
      if (Number.isInteger(step) && this.position < this.steps.length - 1) this.following = false;
      if (redraw) this.draw();
    }

    applyDefaults(options) {
      if (["0", "1", "2", "3"].includes(options.view)) this.mode = Number(options.view);
      if (options.hand) this.gotoHandQuietly(Number(options.hand));
      if (options.step === "end") this.position = Math.max(0, this.steps.length - 1);
    }

    gotoHandQuietly(number) {
      const found = this.handStarts.find(([, hand]) => hand === number);
      if (found) this.position = found[0];
    }

    writeHash() {
      const hash = `#step=${this.position}&view=${this.mode}${this.hideResult ? "&result=hidden" : ""}`;
      if (window.location.hash !== hash) window.history.replaceState(null, "", hash);
    }

    // --- building the page -------------------------------------------------------------

    button(label, title, testid, action) {
      return el("button", { type: "button", title, "aria-label": title, "data-testid": testid, onclick: () => action() }, label);
    }

    build() {
      this.root.textContent = "";
      this.headline = el("div", { class: "pv-headline", "data-testid": "headline" });
      this.handMenu = el("select", { "data-testid": "hand-menu", "aria-label": "jump to hand", onchange: (e) => this.gotoHand(Number(e.target.value)) });
      this.modeMenu = el("select", { "data-testid": "mode", "aria-label": "view", onchange: (e) => this.setMode(e.target.value) });
      this.speedMenu = el("select", { "data-testid": "speed", "aria-label": "speed", onchange: (e) => this.setSpeed(Number(e.target.value)) },
        SPEEDS.map((speed, index) => el("option", { value: index }, `${speed}\u00d7`)));
      this.playButton = this.button("\u25b6", "play / pause (space)", "play", () => this.togglePlay());
      this.followBox = el("input", { type: "checkbox", "data-testid": "follow", onchange: (e) => this.follow(e.target.checked) });
      this.followLabel = el("label", { class: "pv-follow" }, this.followBox, " follow");
      this.positionText = el("span", { class: "pv-position", "data-testid": "position" });
      this.spoilerBox = el("input", { type: "checkbox", "data-testid": "hide-result", onchange: (e) => this.setHideResult(e.target.checked, true) });
      this.slider = el("input", { type: "range", min: 0, max: 0, step: 1, value: 0, class: "pv-slider", "data-testid": "timeline", "aria-label": "step",
        oninput: (e) => this.goto(Number(e.target.value)) });
      this.handMarks = el("div", { class: "pv-marks", "data-testid": "hand-marks" });
      this.controls = el("div", { class: "pv-controls" },
        this.button("\u21e4", "previous hand (PageUp)", "prev-hand", () => this.previousHand()),
        this.button("\u00ab", "previous trick (Up)", "prev-trick", () => this.previousTrick()),
        this.button("\u2039", "previous decision (Left)", "prev", () => this.goto(this.position - 1)),
        this.playButton,
        this.button("\u203a", "next decision (Right)", "next", () => this.goto(this.position + 1)),
        this.button("\u00bb", "next trick (Down)", "next-trick", () => this.nextTrick()),
        this.button("\u21e5", "next hand (PageDown)", "next-hand", () => this.nextHand()),
        this.speedMenu, this.handMenu, this.modeMenu, this.followLabel,
        el("label", { class: "pv-spoilers", title: "watch without knowing who won: the result shows at the last step" }, this.spoilerBox, " hide the result"),
        this.positionText);
      this.seatNodes = [0, 1, 2, 3].map((seat) => el("section", { class: `pv-seat team${this.teamOf(seat)}`, "data-testid": `seat-${seat}` }));
      this.centre = el("div", { class: "pv-centre" });
      this.tableNode = el("div", { class: "pv-table" }, ...this.seatNodes, this.centre);
      this.scoreboard = el("div", { class: "pv-scoreboard" });
      this.narrative = el("ol", { class: "pv-narrative", "data-testid": "narrative" });
      this.trickGrid = el("section", { class: "pv-tricks", "data-testid": "trick-grid", "aria-label": "this hand's tricks" });
      this.logNode = el("div", { class: "pv-logs", "data-testid": "logs" });
      this.root.append(
        this.headline, this.controls,
        el("div", { class: "pv-timeline" }, this.slider, this.handMarks),
        el("div", { class: "pv-body" }, el("div", { class: "pv-main" }, this.tableNode, this.trickGrid, legendNode()),
          el("aside", { class: "pv-side" }, this.scoreboard, el("h3", {}, "This hand"), this.narrative, el("h3", {}, "Bot logs"), this.logNode)));
      this.fillModeMenu();
    }

    drawHandMarks() {
      const last = Math.max(1, this.steps.length - 1);
      this.slider.max = String(Math.max(0, this.steps.length - 1));
      const marks = this.handStarts.map(([position, hand]) => {
        const mark = el("span", { class: "pv-mark", "data-step": position, title: `hand ${hand} (step ${position})`, onclick: () => this.goto(position) });
        mark.style.left = `${(100 * position) / last}%`; // CSSOM, which the CSP allows
        return mark;
      });
      this.handMarks.replaceChildren(...marks);
    }

    setHideResult(on, redraw) {
      this.hideResult = Boolean(on);
      try {
        window.localStorage.setItem(HIDE_RESULT_KEY, this.hideResult ? "1" : "0");
      } catch (error) {
        // storage refused (a file:// page, private mode): the link still carries it
      }
      if (redraw) this.draw();
    }

    fillModeMenu() {
      this.modeMenu.textContent = "";
      this.modeMenu.append(el("option", { value: "all" }, "everything"));
      for (const player of this.header.players) {
        this.modeMenu.append(el("option", { value: player.seat }, `seat ${player.seat} (${player.name}) sees`));
      }
    }

    fillHandMenu() {
      if (this.handMenu.options.length === this.handStarts.length) return;
      for (const [, hand] of this.handStarts.slice(this.handMenu.options.length)) {
        this.handMenu.append(el("option", { value: hand }, `hand ${hand}`));
      }
    }

    members(team) {
      return this.header.players.filter((player) => player.team === team);
    }

    teamOf(seat) {
      return this.header.players[seat].team;
    }

    playerName(seat) {
      const player = this.header.players[seat];
      return player ? `${player.name} ${player.version}`.trim() : `seat ${seat}`;
    }

    sees(seat) {
      return this.mode === "all" || this.mode === seat;
    }

    // --- drawing -----------------------------------------------------------------------

    draw() {
      const table = this.steps.length ? this.tableAt(this.position) : emptyTable();
      this.writeHash();
      this.drawHeadline();
      this.drawControls(table);
      const bottom = this.mode === "all" ? 0 : this.mode;
      for (let seat = 0; seat < 4; seat++) {
        this.seatNodes[seat].dataset.place = ["south", "west", "north", "east"][(seat - bottom + 4) % 4];
        this.drawSeat(seat, table);
      }
      this.drawCentre(table);
      this.drawTricks(table);
      this.drawScoreboard(table);
      this.drawNarrative();
      this.drawLogs();
      for (const hook of this.drawHooks) hook(this);
    }

    drawHeadline() {
      const header = this.header;
      const teams = [0, 1].map((team) =>
        el("span", { class: `team${team}` }, `team ${team}: ${this.members(team).map((p) => this.playerName(p.seat)).join(" & ")}`));
      const parts = [el("strong", {}, header.game ? `game ${header.game}` : "game"), " ", teams[0], " vs ", teams[1]];
      const result = header.result;
      const atEnd = this.finished && this.position >= this.steps.length - 1;
      // the study sections under the viewer (hand table, score chart) tell the result too
      document.body.classList.toggle("pv-result-hidden", this.hideResult && !atEnd);
      if (this.hideResult && !atEnd) {
        parts.push(el("span", { class: "pv-result hidden", "data-testid": "result" }, " \u00b7 result hidden until the last step"));
      } else if (result) {
        const winner = result.winner === null ? "a draw" : `team ${result.winner} wins`;
        const forfeit = result.forfeited_by === null || result.forfeited_by === undefined ? "" : ` by seat ${result.forfeited_by}`;
        parts.push(el("span", { class: "pv-result", "data-testid": "result" },
          ` \u00b7 ${winner} (${TERMINATIONS[result.termination] || result.termination}${forfeit}), ${pair(result.scores)} after ${result.hands} hand${result.hands === 1 ? "" : "s"}`));
      } else {
        parts.push(el("span", { class: "pv-result live", "data-testid": "result" }, " \u00b7 in progress"));
      }
      const rules = header.rules || {};
      parts.push(el("div", { class: "pv-rules" },
        `rules: scoring by ${rules.scoring}, target ${rules.target}, hand cap ${rules.hand_cap}${rules.dealer_steal ? ", dealer may steal" : ""}` +
        ` \u00b7 ${header.seed === null || header.seed === undefined ? "no seed" : `seed ${header.seed}`} \u00b7 first dealer seat ${header.first_dealer}`));
      if (header.discrepancy) {
        parts.push(el("div", { class: "pv-discrepancy", "data-testid": "discrepancy", role: "alert" },
          `The record does not replay past this point: ${header.discrepancy}`));
      }
      this.headline.replaceChildren(...parts);
    }

    drawControls(table) {
      this.playButton.textContent = this.timer ? "\u275a\u275a" : "\u25b6";
      this.speedMenu.value = String(this.speed);
      this.modeMenu.value = String(this.mode);
      if (table.hand) this.handMenu.value = String(table.hand);
      this.followBox.checked = this.following;
      this.followLabel.hidden = this.finished;
      this.spoilerBox.checked = this.hideResult;
      this.slider.value = String(this.position);
      const total = this.steps.length;
      const turn = this.turnAtNewest();
      const acting = turn ? ` \u00b7 seat ${turn.seat} (${this.playerName(turn.seat)}) to ${DECISION_VERB[turn.decision] || turn.decision}` : "";
      this.positionText.textContent = total ? `hand ${table.hand || "\u2013"} \u00b7 step ${this.position} of 0\u2013${total - 1}${acting}` : "no steps yet";
    }

    // Whose decision the game waits for, when the newest step of a game going on is shown.
    turnAtNewest() {
      return this.toAct && !this.finished && this.position === this.steps.length - 1 ? this.toAct : null;
    }

    drawSeat(seat, table) {
      const node = this.seatNodes[seat];
      const step = table.step;
      const next = this.steps[this.position + 1] || (this.turnAtNewest() ? { s: this.toAct.seat, k: this.toAct.decision } : null);
      const chips = [];
      if (table.dealer === seat) chips.push(el("span", { class: "chip dealer", title: "dealer" }, "D"));
      if (table.bids[seat] !== null) {
        const bid = table.bids[seat];
        const won = table.contract && table.contract[0] === seat;
        chips.push(el("span", { class: `chip bid${won ? " bidder" : ""}`, "data-testid": `bid-${seat}` }, bid ? `bid ${bid}${won ? " \u2605" : ""}` : "pass"));
      }
      if (next && next.s === seat && next.k !== "fault") chips.push(el("span", { class: "chip turn" }, "to act"));
      const acted = step && step.s === seat && step.k !== "fault" && step.k !== "deal";
      node.classList.toggle("acted", Boolean(acted));
      node.classList.toggle("viewer", this.mode === seat);
      const cards = table.hands[seat];
      const hand = this.sees(seat)
        ? cardsNode(cards, table, `hand-${seat}`)
        : el("span", { class: "cards hidden", "data-testid": `hand-${seat}`, "data-hidden-count": cards.length, title: `${cards.length} cards, hidden` }, cards.map(() => cardBack()));
      const notes = [];
      const note = (label, content) => notes.push(el("div", { class: "note" }, el("span", { class: "label" }, label), content));
      if (table.out[seat].length) note("out", cardsNode(table.out[seat], table));
      if (table.discards[seat].length) note("discarded", cardsNode(table.discards[seat], table));
      if (table.picked[seat].length) note("picked up", cardsNode(table.picked[seat], table));
      if (table.fill) {
        const fill = table.fill[seat];
        note("fill", this.sees(seat) ? cardsNode(fill, table) : `${fill.length} card${fill.length === 1 ? "" : "s"}`);
      }
      if (table.scored) {
        const held = table.scored.held.find((entry) => entry.seat === seat);
        if (held) note("still held", this.sees(seat) ? [cardsNode(held.cards, table), ` ${held.points} pt`] : `${held.points} pt`);
      }
      const seatFaults = table.faults.filter((fault) => fault.seat === seat);
      fillNode(node, 
        el("header", {},
          el("span", { class: "name" }, `seat ${seat} \u00b7 ${this.playerName(seat)}`),
          el("span", { class: "team" }, `team ${this.teamOf(seat)}`), ...chips),
        hand,
        ...notes,
        ...seatFaults.map((fault) => el("div", { class: "fault-mark", "data-testid": `fault-${seat}` }, `\u26a0 ${fault.kind}: ${fault.detail}`)),
        acted ? el("div", { class: "action", "data-testid": `action-${seat}` }, this.actionText(step), this.marks(step)) : null);
    }

    marks(step) {
      return [
        step.forced ? el("span", { class: "mark forced", title: "the only legal action: the bot was not asked" }, "forced") : null,
        step.substitute ? el("span", { class: "mark substitute", title: "a substitute move after a fault" }, "substitute") : null,
      ];
    }

    actionText(step) {
      const seat = step.s;
      switch (step.k) {
        case "bid":
          return step.bid ? `bids ${step.bid}` : "passes";
        case "trump":
          return `names ${SUIT_SYMBOL[step.trump]} ${SUIT_NAME[step.trump]}`;
        case "discard":
          return `discards ${cardsText(step.cards)}`;
        case "pickup":
          return `picks up ${cardsText(step.cards)}`;
        case "stock":
          return this.lookText(step, this.sees(seat));
        case "play":
          return `plays ${step.card}`;
        default:
          return step.a || step.k;
      }
    }

    lookText(step, visible) {
      if (!visible) return `looks through the stock: ${step.move}`;
      if (step.move === "take") return `turns ${step.card}: takes it, gives up ${step.give}`;
      if (step.move === "leave") return `turns ${step.card}: leaves it`;
      const rest = step.looker === null ? "the rest leaves play" : `the rest goes to seat ${step.looker}`;
      return `turns ${step.card}: stops, ${rest}`;
    }

    drawCentre(table) {
      const parts = [];
      const contract = table.contract
        ? `bid ${table.contract[1]} by seat ${table.contract[0]} (team ${this.teamOf(table.contract[0])})`
        : table.hand ? "bidding" : "";
      parts.push(el("div", { class: "pv-contract", "data-testid": "contract" },
        table.hand ? `hand ${table.hand} \u00b7 ` : "", contract,
        table.trump ? el("span", { class: `trump-name ${table.trump === "D" || table.trump === "H" ? "red" : "black"}`, "data-testid": "trump" },
          ` \u00b7 trump ${SUIT_SYMBOL[table.trump]} ${SUIT_NAME[table.trump]}`) : null));
      const bottom = this.mode === "all" ? 0 : this.mode;
      const slots = table.trick.map(([seat, card]) =>
        el("div", { class: `slot ${["south", "west", "north", "east"][(seat - bottom + 4) % 4]}`, "data-testid": `trick-card-${seat}` }, cardNode(card, table)));
      parts.push(el("div", { class: "pv-trick", "data-testid": "trick", "data-trick": table.tricks + (table.trickDone ? 0 : 1) }, slots));
      if (table.trickDone) {
        const done = table.trickDone;
        const deuce = done.deuce === null || done.deuce === undefined ? "" : `, the deuce to team ${done.deuce}`;
        parts.push(el("div", { class: `pv-winner team${this.teamOf(done.winner)}`, "data-testid": "trick-winner", "data-winner": done.winner },
          `trick ${done.number}: seat ${done.winner} (${this.playerName(done.winner)}) wins, ${done.points} point${done.points === 1 ? "" : "s"}${deuce}`));
      }
      if (table.looker !== null && table.pile.length) {
        const visible = this.mode === "all";
        parts.push(el("div", { class: "pv-pile", "data-testid": "pile" },
          el("span", { class: "label" }, `stock for seat ${table.looker}'s look: `),
          visible ? cardsNode(table.pile, table) : `${table.pile.length} card${table.pile.length === 1 ? "" : "s"}`));
      }
      if (table.centre.length && table.tricks === 0 && !table.trick.length) {
        parts.push(el("div", { class: "pv-centre-cards" }, el("span", { class: "label" }, "centre, face up: "), cardsNode(table.centre, table)));
      }
      if (table.scored) parts.push(this.scoredNode(table.scored));
      if (table.end) parts.push(this.endNode(table.end));
      this.centre.replaceChildren(...parts);
    }

    // The hand's tricks so far as a grid beside the table's current one.
    drawTricks(table) {
      const start = this.handStartOf(this.position);
      const tricks = start === null ? [] : handTricks(this.steps, start, this.position);
      const current = table.trick.length ? tricks[tricks.length - 1] : null;
      this.trickGrid.replaceChildren(el("h3", {}, "Tricks ", el("span", { class: "label" }, "\u25b8 led \u00b7 ringed: won")), trickGridNode(tricks, table, this, current, (step) => this.goto(step)));
    }

    scoredNode(scored) {
      const team = this.teamOf(scored.bidder);
      return el("div", { class: "pv-scored", "data-testid": "hand-score" },
        el("div", {}, `team ${team} bid ${scored.bid}, took ${scored.points[team]}: `,
          el("strong", { class: scored.made ? "made" : "set" }, scored.made ? "made it" : "set")),
        el("div", {}, `points: team 0 ${scored.points[0]}, team 1 ${scored.points[1]}, dead ${scored.dead}`),
        el("div", {}, `score change: team 0 ${signed(scored.gain[0])}, team 1 ${signed(scored.gain[1])}`),
        scored.moon ? el("div", { class: "moon", "data-testid": "moon" }, `\u263e team ${team} shot the moon: bid 13 and took all 13`) : null);
    }

    endNode(end) {
      const winner = end.winner === null ? "a draw" : `team ${end.winner} wins`;
      const forfeit = end.forfeited_by === null ? "" : ` by seat ${end.forfeited_by}`;
      return el("div", { class: "pv-end", "data-testid": "game-over" },
        `Game over: ${winner} (${TERMINATIONS[end.termination] || end.termination}${forfeit}), ${pair(end.scores)}`);
    }

    drawScoreboard(table) {
      const rows = [0, 1].map((team) =>
        el("tr", { class: `team${team}` },
          el("th", {}, `team ${team}`),
          el("td", { class: "who" }, this.members(team).map((p) => p.name).join(" & ")),
          el("td", { "data-testid": `team-points-${team}` }, String(table.taken[team])),
          el("td", { "data-testid": `score-${team}` }, String(table.scores[team]))));
      this.scoreboard.replaceChildren(el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, ""), el("th", {}, "this hand"), el("th", {}, "score"))),
        el("tbody", {}, rows)));
    }

    narrativeLine(step) {
      const who = (seat) => `seat ${seat}`;
      switch (step.k) {
        case "deal":
          return `hand ${step.hand} dealt by seat ${step.dealer}; score ${pair(step.scores)}`;
        case "fault":
          return `FAULT seat ${step.seat} ${step.kind}: ${step.detail}`;
        case "end": {
          const winner = step.winner === null ? "a draw" : `team ${step.winner} wins`;
          return `game over: ${winner} (${TERMINATIONS[step.termination] || step.termination}), ${pair(step.scores)}`;
        }
      }
      let text = `${who(step.s)} ${this.actionText(step)}`;
      if (step.k === "trump") text += "; the non-trumps go out";
      if (step.fill) text += "; the stock fills the hands";
      if (step.trick) text += ` \u2192 trick ${step.trick.number} to seat ${step.trick.winner}, ${step.trick.points} pt`;
      if (step.scored) text += ` \u2192 hand over: ${pair(step.scored.points)} points, score ${pair(step.scored.scores)}`;
      return text;
    }

    drawNarrative() {
      const start = this.handStartOf(this.position);
      const first = start === null ? 0 : start;
      const nextStart = this.handStarts.find(([position]) => position > first);
      // one seat's view shows the hand so far only: that seat did not know what came next
      const handEnd = nextStart ? nextStart[0] : this.steps.length;
      const end = this.mode === "all" ? handEnd : Math.min(handEnd, this.position + 1);
      const items = [];
      for (let i = first; i < end; i++) {
        const step = this.steps[i];
        const classes = [step.k, i === this.position ? "current" : "", i > this.position ? "future" : ""].join(" ");
        items.push(el("li", { class: classes, "data-step": i, onclick: () => this.goto(i) }, this.narrativeLine(step), this.marks(step)));
      }
      this.narrative.start = first; // each line's number is its step's, as on the screen and in the link
      this.narrative.replaceChildren(...items);
      const current = this.narrative.querySelector(".current");
      if (current) scrollWithin(this.narrative, current);
    }

    // The current step's lines; at a fault, the faulty bot's last lines and its exception.
    drawLogs() {
      const step = this.steps[this.position];
      const placed = (line) => line.at !== null && line.at !== undefined;
      const shown = this.logs.filter((line) => this.sees(line.s));
      const lineNode = (line) =>
        el("div", { class: "log-line", "data-step": line.at },
          el("span", { class: `who team${this.teamOf(line.s)}` }, `seat ${line.s}`), " ", line.t);
      const nodes = [];
      if (step && step.k === "fault") {
        const own = this.sees(step.seat);
        const last = own ? step.last || [] : [];
        nodes.push(el("div", { class: "pv-fault-logs", "data-testid": "fault-logs" },
          el("div", { class: "label" }, `seat ${step.seat} ${step.kind}: ${step.detail}`),
          ...(own && step.exception ? [el("div", { class: "exception", "data-testid": "fault-exception" }, step.exception)] : []),
          ...(last.length ? [el("div", { class: "label" }, "its last lines, its own first:"), ...last.map((text) => el("div", { class: "log-line" }, text))] : [])));
      } else {
        const here = shown.filter((line) => line.at === this.position);
        nodes.push(el("div", { class: "pv-step-logs", "data-testid": "step-logs" },
          ...(here.length ? here.map(lineNode) : [el("div", { class: "none" }, shown.some(placed) ? "no log lines at this step" : "no log lines for this game")])));
      }
      const unplaced = shown.filter((line) => !placed(line));
      if (unplaced.length) nodes.push(el("div", { class: "label" }, "during the game:"), ...unplaced.map(lineNode));
      this.logNode.replaceChildren(...nodes);
    }
  }

  function storedHideResult() {
    try {
      return window.localStorage.getItem(HIDE_RESULT_KEY) === "1";
    } catch (error) {
      return false;
    }
  }

  // What the marks on the cards and seats mean.
  function legendNode() {
    const sample = { order: ["AS"], points: { AS: 1 } };
    const item = (mark, text) => el("span", { class: "item" }, mark, " ", text);
    return el("div", { class: "pv-legend", "data-testid": "legend" },
      item(cardNode("AS", sample), "trump, with a dot: a point card"),
      item(cardNode("KH", sample), "faded: not trump"),
      item(el("span", { class: "chip dealer" }, "D"), "dealer"),
      item(el("span", { class: "chip bid bidder" }, "bid 3 \u2605"), "the bid's winner"),
      item(el("span", { class: "chip turn" }, "to act"), "acts next"),
      item(el("span", { class: "pv-acted-sample" }), "acted at this step"));
  }

  function fillNode(node, ...children) {
    node.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  }

  function scrollWithin(list, item) {
    // the list scrolls, never the page: stepping must not move what the reader looks at
    const top = item.offsetTop; // the list is positioned (viewer.css), so this is within it
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }

  function pair(values) {
    return `${values[0]} to ${values[1]}`;
  }

  function signed(number) {
    return number > 0 ? `+${number}` : String(number);
  }

  function mount(root, timeline) {
    const viewer = new Viewer(root, timeline);
    const api = {
      append: (steps, toAct) => viewer.appendSteps(steps, true, toAct),
      finish: (header) => viewer.finish(header),
      appendLogs: (lines) => viewer.appendLogs(lines),
      setLogs: (lines) => viewer.setLogs(lines),
      follow: (on) => viewer.follow(on),
      goto: (index) => viewer.goto(index),
      onDraw: (hook) => {
        viewer.drawHooks.push(hook);
        hook(viewer);
      },
      get length() { return viewer.steps.length; },
      get position() { return viewer.position; },
      get following() { return viewer.following; },
      viewer,
    };
    return api;
  }

  window.PitchViewer = { mount };

  function boot() {
    const data = document.getElementById("timeline-data");
    const root = document.getElementById("pitch-viewer");
    if (!data || !root) return;
    try {
      window.pitchViewer = mount(root, JSON.parse(data.textContent));
    } catch (error) {
      root.replaceChildren(el("p", { class: "pv-discrepancy", role: "alert" }, `This game cannot be shown: ${error.message}`));
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
