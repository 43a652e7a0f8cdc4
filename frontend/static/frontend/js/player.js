// A player's profile: stats of the ranked dailies, streaks per variant, two histograms.
import { api, el, errorMessage, VARIANT_NAMES } from "./api.js";

const root = document.getElementById("profile");
const $ = (id) => document.getElementById(id);
const username = root.dataset.username;

function say(text, kind = "info") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

function bars(table, rows) {
  const most = Math.max(1, ...rows.map((row) => row.count));
  table.tBodies[0].replaceChildren(...rows.map((row) => el("tr", {},
    el("th", { scope: "row", text: row.label }),
    el("td", {},
      el("span", { class: "bar", style: `--w:${(100 * row.count) / most}%`, "aria-hidden": "true" }),
      el("span", { class: "bar-count", text: String(row.count) })))));
}

const percent = (rate) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);
const value = (v, digits = 0) => (v === null || v === undefined ? "–" : Number(v).toFixed(digits));

async function load() {
  const variant = $("variant").value;
  let answer;
  try {
    answer = await api("GET", `leaderboards/players/${encodeURIComponent(username)}/${variant ? `?variant=${variant}` : ""}`);
  } catch {
    say("No connection to the server: reload to try again.", "error");
    return;
  }
  if (!answer.ok) {
    say(answer.status === 404 ? `No player is called ${username}.` : errorMessage(answer), "error");
    root.dataset.ready = "true";
    return;
  }
  const { stats, streaks } = answer.data;
  const list = $("stats");
  list.replaceChildren();
  for (const [name, v] of [["Played", stats.played], ["Won", stats.won], ["Win rate", percent(stats.win_rate)],
    ["Best score", value(stats.best_score)], ["Average score", value(stats.average_score, 1)]]) {
    list.append(el("dt", { text: name }), el("dd", { text: String(v) }));
  }
  $("streaks").tBodies[0].replaceChildren(...streaks.map((s) => el("tr", { "data-variant": s.variant },
    el("th", { scope: "row", text: VARIANT_NAMES[s.variant] || s.variant }),
    el("td", { text: String(s.current) }),
    el("td", { text: String(s.best) }),
    el("td", { text: s.last_won || "–" }))));
  bars($("histogram"), stats.score_histogram.map((b) => ({
    label: b.end === null ? `${b.start}+` : `${b.start}–${b.end}`, count: b.count })));
  bars($("runs"), stats.runs_histogram.map((b) => ({ label: String(b.runs_completed), count: b.count })));
  say(stats.played ? `${stats.played} ranked ${stats.played === 1 ? "daily" : "dailies"} played.` : "No ranked daily played yet.");
  root.dataset.ready = "true";
}

for (const [key, name] of Object.entries(VARIANT_NAMES)) {
  $("variant").append(el("option", { value: key, text: name }));
}
$("variant").addEventListener("change", () => { root.dataset.ready = "false"; load(); });
load();
