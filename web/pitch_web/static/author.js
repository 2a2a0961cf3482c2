// The author page: a token typed once per tab, then the author's verdicts, their bots'
// logs and retiring, all through the authenticated API (web/pitch_web/service.py).
"use strict";

const STORE = "pitch-token";
const $ = (id) => document.getElementById(id);

async function api(path, options = {}) {
  const token = sessionStorage.getItem(STORE);
  const answer = await fetch(`/api/${path}`, {
    ...options,
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!answer.ok) {
    let detail = answer.statusText;
    try { detail = (await answer.json()).detail; } catch (_) { /* not JSON */ }
    throw new Error(`${answer.status}: ${detail}`);
  }
  return answer;
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function showError(error) {
  $("author-error").textContent = error.message;
  $("author-error").hidden = false;
}

async function show() {
  $("author-error").hidden = true;
  let verdicts;
  try {
    verdicts = await (await api("submissions")).json();
  } catch (error) {
    $("verdicts-section").hidden = $("bots-section").hidden = true;
    showError(error);
    return;
  }
  const body = $("verdicts-section").querySelector("tbody");
  body.replaceChildren();
  for (const verdict of verdicts) {
    const row = body.insertRow();
    cell(row, verdict.submitted_at.slice(0, 19).replace("T", " "));
    cell(row, `${verdict.bot || "?"} ${verdict.version}`);
    if (verdict.accepted) {
      cell(row, verdict.new ? "accepted" : "unchanged (already stored)", "accepted");
    } else {
      const reason = cell(row, "", "refused");
      const pre = document.createElement("pre");
      pre.textContent = verdict.reason;
      reason.append(pre, submissionLogs(verdict.id));
    }
  }
  $("verdicts-section").hidden = false;
  const bots = [...new Set(verdicts.filter((v) => v.accepted).map((v) => v.bot))];
  const list = $("bots");
  list.replaceChildren();
  for (const name of bots) list.append(await botLogs(name));
  $("bots-section").hidden = bots.length === 0;
}

// A refused submission's smoke-test logs: its own, by its number, never a bot name's.
function submissionLogs(id) {
  const box = document.createElement("div");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "smoke-test logs";
  button.dataset.submission = id;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const logs = await (await api(`submissions/${id}/logs`)).json();
      box.append(logList(logs, `submissions/${id}/logs`));
    } catch (error) {
      box.append(error.message);
    }
  });
  box.append(button);
  return box;
}

function logList(logs, where) {
  const items = document.createElement("ul");
  for (const log of logs) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = "#";
    link.textContent = log.path;
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      try {
        const text = await (await api(`${where}/${log.path}`)).text();
        $("log-text").textContent = text;
        $("log-text").hidden = false;
        $("bots-section").hidden = false;
      } catch (error) { showError(error); }
    });
    item.append(link, ` (${log.size.toLocaleString()} bytes)`);
    items.append(item);
  }
  if (!logs.length) items.textContent = "no logs";
  return items;
}

async function botLogs(name) {
  const box = document.createElement("div");
  box.className = "author-bot";
  const heading = document.createElement("h3");
  heading.textContent = name;
  const retire = document.createElement("button");
  retire.textContent = "retire";
  retire.addEventListener("click", async () => {
    if (!confirm(`Retire ${name}? It will play no more; its games and ratings stay.`)) return;
    try {
      await api(`bots/${encodeURIComponent(name)}/retire`, { method: "POST" });
      retire.disabled = true;
      retire.textContent = "retired";
    } catch (error) { showError(error); }
  });
  heading.append(" ", retire);
  box.append(heading);
  try {
    const where = `bots/${encodeURIComponent(name)}/logs`;
    box.append(logList(await (await api(where)).json(), where));
  } catch (error) {
    box.append(error.message);
  }
  return box;
}

document.addEventListener("DOMContentLoaded", () => {
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(STORE, $("token").value.trim());
    $("token").value = "";
    show();
  });
  $("forget").addEventListener("click", () => {
    sessionStorage.removeItem(STORE);
    $("verdicts-section").hidden = $("bots-section").hidden = true;
  });
  if (sessionStorage.getItem(STORE)) show();
});
