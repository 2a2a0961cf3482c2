// A ladder game's page shows everyone the log lines of the operator's own bots only: a
// bot's log is its author's. An author whose token is in this tab (typed on /author) gets
// their bots' lines for this game from the API and sees them beside the table too, and at
// their bot's fault its last lines and exception.
"use strict";

(function () {
  const TOKEN = "pitch-token"; // where author.js keeps the tab's token

  function addOwnLogs() {
    const token = sessionStorage.getItem(TOKEN);
    const root = document.getElementById("pitch-viewer");
    const viewer = window.pitchViewer;
    if (!token || !root || !viewer) return;
    fetch(`/api/game-logs/${encodeURIComponent(root.dataset.game)}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
      .then((response) => (response.ok ? response.json() : { logs: [], faults: [] }))
      .then((body) => {
        const shown = new Set(viewer.viewer.logs.map((line) => line.s));
        for (const fault of body.faults || []) { // the author's own bot's last lines at its fault
          const step = viewer.viewer.steps[fault.at];
          if (step && step.k === "fault" && !step.last) Object.assign(step, { last: fault.last, exception: fault.exception });
        }
        viewer.appendLogs(body.logs.filter((line) => !shown.has(line.s)));
      })
      .catch(() => {}); // the public page stays as it is
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", addOwnLogs);
  else addOwnLogs();
})();
