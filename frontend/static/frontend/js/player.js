// A player's page: ratings with their history, the days played, best ranks, recent replays,
// stats of the ranked dailies, streaks per variant, two histograms; and, on their own page,
// the player's choice to hide it from others.
import { api, el, errorMessage, me, VARIANT_NAMES } from "./api.js";
import { calendarChart, ratingChart } from "./player/charts.js";

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
const variantName = (variant) => VARIANT_NAMES[variant] || variant;
const signed = (n) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(1)}`;

function drawRatings(ratings, history) {
  const blocks = ratings.map((r) => {
    const days = history[r.variant] || [];
    const last = days.at(-1);
    const words = `${variantName(r.variant)}: ${r.rating.toFixed(1)} after ${r.rated_days} rated ${r.rated_days === 1 ? "day" : "days"}`
      + (last ? ` (${signed(last.rating - last.rating_before)} on ${last.date})` : "");
    return el("figure", { class: "rating", "data-variant": r.variant },
      el("figcaption", { text: words }),
      ratingChart(days, `${variantName(r.variant)} rating over ${days.length} rated days, from ${days.length ? days[0].rating.toFixed(1) : "–"} to ${r.rating.toFixed(1)}`));
  });
  $("ratings").replaceChildren(...(blocks.length ? blocks
    : [el("p", { text: "No rated day yet: a daily's ratings are updated when its day closes." })]));
}

function drawCalendar(days) {
  const won = days.filter((d) => d.won).length;
  const dates = new Set(days.map((d) => d.date));
  const today = new Date().toISOString().slice(0, 10);
  $("calendar").replaceChildren(
    calendarChart(days, today, `${dates.size} days played in the last year, ${won} ${won === 1 ? "daily" : "dailies"} won`),
    el("p", { text: `${dates.size} days played in the last year; ${won} won.` }));
}

function drawBestRanks(places) {
  $("best-ranks").tBodies[0].replaceChildren(...places.map((p) => el("tr", {},
    el("td", {}, el("a", { href: `/leaderboards/${p.challenge_id}/`, text: p.date })),
    el("td", { text: variantName(p.variant) }),
    el("td", { text: String(p.rank) }),
    el("td", { text: String(p.players) }))));
}

function drawReplays(replays) {
  $("replays").replaceChildren(...(replays.length ? replays.map((r) => el("li", {},
    el("a", { href: `/replay/${r.attempt_id}/`, text: `${r.date} · ${variantName(r.variant)}` }),
    ` ${r.won ? "won" : "not won"}, score ${r.score}`)) : [el("li", { text: "No replay yet: a day's games open once it is over." })]));
}

async function offerPrivacy(hidden) {
  const who = await me();
  if (!who.authenticated || who.user.username !== username) return;
  const box = $("hide-page");
  const note = () => {
    $("privacy-note").textContent = box.checked
      ? "Hidden: others get “no such player” for this page."
      : "Public: anyone can see this page.";
  };
  box.checked = hidden;
  note();
  box.onchange = async () => {
    box.disabled = true;
    const answer = await api("PUT", "leaderboards/profile/", { hidden: box.checked }).catch(() => null);
    box.disabled = false;
    if (!answer || !answer.ok) {
      box.checked = !box.checked;
      say(answer ? errorMessage(answer) : "No connection to the server: try again.", "error");
    }
    note();
  };
  $("privacy").hidden = false;
}

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
    for (const id of ["ratings", "calendar", "replays"]) $(id).replaceChildren();
    root.dataset.ready = "true";
    return;
  }
  const { stats, streaks } = answer.data;
  drawRatings(answer.data.ratings, answer.data.rating_history);
  drawCalendar(answer.data.calendar);
  drawBestRanks(answer.data.best_ranks);
  drawReplays(answer.data.recent_replays);
  offerPrivacy(answer.data.hidden);
  const list = $("stats");
  list.replaceChildren();
  for (const [name, v] of [["Played", stats.played], ["Won", stats.won], ["Win rate", percent(stats.win_rate)],
    ["Best score", value(stats.best_score)], ["Average score", value(stats.average_score, 1)]]) {
    list.append(el("dt", { text: name }), el("dd", { text: String(v) }));
  }
  $("streaks").tBodies[0].replaceChildren(...streaks.map((s) => el("tr", { "data-variant": s.variant },
    el("th", { scope: "row", text: variantName(s.variant) }),
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
