/*
 * Pitch Arena live games (docs/live.md).
 *
 * On a live game's page (#live-status, after viewer.js): connects the game's server-sent
 * events to window.pitchViewer. The page already holds the timeline so far
 * (data-after steps), so the stream starts after it: "timeline" and "steps" events
 * append steps (the viewer follows the newest) and grow the hand table and score chart
 * under it (their "hands"), "end" finishes the game with its final header, "gone" says
 * the game stopped unfinished. A dropped connection reconnects by
 * itself and resumes after the last step received (the events' ids count steps).
 *
 * On the list of live games (#live-games): refreshes the list from /api/live.
 */
"use strict";

(function () {
  const LIST_REFRESH_MS = 3000;

  function text(tag, content, className) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (className) node.className = className;
    return node;
  }

  function follow(status) {
    const viewer = window.pitchViewer;
    if (!viewer) {
      status.textContent = "This game cannot be followed: the viewer did not start.";
      return;
    }
    const root = document.getElementById("pitch-viewer");
    if (root) root.before(status);
    viewer.follow(true);
    const url = `${status.dataset.events}?after=${encodeURIComponent(status.dataset.after)}`;
    const source = new EventSource(url);

    function append(data) {
      const have = viewer.length;
      if (data.from > have) { // a gap: should not happen, since ids resume the stream
        status.textContent = "live: steps were missed; reload the page";
        return;
      }
      viewer.append(data.steps.slice(have - data.from), data.to_act);
      if (data.logs) viewer.setLogs(data.logs); // the lines so far, each at its step
      if (data.hands) growHands(data.hands);
    }

    source.addEventListener("timeline", (event) => {
      append(JSON.parse(event.data));
      status.textContent = "live: following the game as it is played";
    });
    source.addEventListener("steps", (event) => append(JSON.parse(event.data)));
    source.addEventListener("end", (event) => {
      source.close();
      const data = JSON.parse(event.data);
      viewer.finish(data.header);
      status.className = "live-status over";
      status.replaceChildren("The game is over.");
      if (data.view) {
        const link = text("a", "Open its record");
        link.href = data.view;
        status.append(" ", link);
      }
    });
    source.addEventListener("gone", (event) => {
      source.close();
      viewer.follow(false);
      status.className = "live-status lost";
      status.textContent = JSON.parse(event.data).message;
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CONNECTING) {
        status.textContent = "live: reconnecting\u2026";
      } else if (source.readyState === EventSource.CLOSED) { // refused: the game is no longer live
        status.className = "live-status lost";
        status.textContent = "The live stream stopped; reload the page to see the game.";
      }
    });
  }

  // The server's HTML (the /view page's own templates, escaped there) as nodes.
  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  // The hand table and score chart under the viewer, as the stream's "hands" update says:
  // the rows from the `from`-th on replaced, and the chart redrawn once a hand is scored.
  function growHands(hands) {
    const studies = document.getElementById("pv-studies");
    if (!studies) return;
    const table = studies.querySelector("[data-testid=hand-table-section]");
    if (!table) return;
    const body = table.querySelector("tbody");
    while (body.rows.length > hands.from) body.rows[body.rows.length - 1].remove();
    body.append(fragment(hands.rows.join("")));
    table.hidden = body.rows.length === 0;
    if (hands.chart === undefined) return;
    const chart = studies.querySelector("[data-testid=score-chart-section]");
    if (chart) chart.remove();
    if (hands.chart) studies.prepend(fragment(hands.chart));
  }

  function row(game) {
    const tr = document.createElement("tr");
    tr.dataset.key = game.key;
    const link = text("a", game.game);
    link.href = game.url;
    const cell = document.createElement("td");
    cell.append(link);
    tr.append(
      cell,
      text("td", game.match),
      text("td", `${game.players[0]} & ${game.players[2]}`, "team0"),
      text("td", `${game.players[1]} & ${game.players[3]}`, "team1"),
      text("td", String(game.hand)),
      text("td", `${game.score[0]}\u2013${game.score[1]}`),
      text("td", game.started),
    );
    return tr;
  }

  function refreshList(table) {
    const empty = document.getElementById("live-empty");
    async function refresh() {
      try {
        const response = await fetch(table.dataset.source, { cache: "no-store" });
        if (response.ok) {
          const games = await response.json();
          table.tBodies[0].replaceChildren(...games.map(row));
          if (empty) empty.hidden = games.length > 0;
        }
      } catch (error) {
        // the server is restarting: try again at the next refresh
      }
      window.setTimeout(refresh, LIST_REFRESH_MS);
    }
    window.setTimeout(refresh, LIST_REFRESH_MS);
  }

  function boot() {
    const status = document.getElementById("live-status");
    if (status) follow(status);
    const list = document.getElementById("live-games");
    if (list) refreshList(list);
  }

  // after viewer.js, which mounts the viewer when the document has loaded
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
