// A bot's page, for an admin: whether its think times tell its partner about its hidden
// hand (GET /api/bots/{name}/timing, pitch_ladder.timing's statistic). Shown only when an
// admin's token is in this tab (typed on /author); for anyone else the API answers 401 or
// 403 and the page stays as it is.
"use strict";

(function () {
  const TOKEN = "pitch-token"; // where author.js keeps the tab's token

  function text(tag, content, className) {
    const element = document.createElement(tag);
    element.textContent = content;
    if (className) element.className = className;
    return element;
  }

  function pValue(p) {
    return p === null ? "too few hands" : `p = ${p < 0.001 ? p.toExponential(1) : p.toFixed(3)}`;
  }

  function show(root, body) {
    const flagged = body.versions.filter((line) => line.flagged);
    root.replaceChildren(text("h2", "Timing between partners (admins only)"));
    const summary = flagged.length
      ? `Flagged: the think times of ${flagged.map((line) => line.version).join(", ")} follow ` +
        "its hidden hand: evidence to read its games by, not a verdict."
      : "Not flagged: no version's think times follow its hidden hand.";
    root.append(text("p", summary, flagged.length ? "tag timing-flagged" : "muted"));
    const list = document.createElement("ul");
    for (const line of body.versions) {
      const found = line.feature ? `, most with "${line.feature}"` : "";
      list.append(
        text(
          "li",
          `${line.version}: ${pValue(line.p)}${found} (${line.hands} hands, ` +
            `${line.decisions} decisions, newest ${line.games} games)` +
            (line.flagged ? ": flagged" : ""),
        ),
      );
    }
    root.append(list);
    root.append(
      text("p", `Flagged under p = ${body.threshold} (Bonferroni over the hand's facts).`, "muted"),
    );
    root.hidden = false;
  }

  function addTiming() {
    const token = sessionStorage.getItem(TOKEN);
    const root = document.getElementById("timing-flag");
    if (!token || !root) return;
    fetch(`/api/bots/${encodeURIComponent(root.dataset.bot)}/timing`, {
      headers: { Authorization: `Bearer ${token}` },
    })
      .then((response) => (response.ok ? response.json() : null))
      .then((body) => body && show(root, body))
      .catch(() => {}); // the public page stays as it is
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", addTiming);
  else addTiming();
})();
