// Leaderboard pages: one day's board (with the signed-in player's own rank, even outside
// the top) and the all-time board. Everything from the leaderboards API.
import { api, el, errorMessage, formatSeconds, me, progressText, VARIANT_NAMES } from "./api.js";
import { connectLive } from "./live.js";

const root = document.getElementById("boardpage");
const $ = (id) => document.getElementById(id);
const mode = root.dataset.mode;

function say(text, kind = "info") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

function head(...names) {
  $("ranking").tHead.rows[0].replaceChildren(...names.map((name) => el("th", { scope: "col", text: name })));
}

const playerLink = (username) => el("a", { href: `/players/${encodeURIComponent(username)}/`, text: username });

function dayRow(row, mine, closed, faceDown) {
  return el("tr", { class: mine ? "me" : null, "data-rank": String(row.rank) },
    el("td", { text: String(row.rank) }),
    el("td", {}, playerLink(row.username), mine ? " (you)" : ""),
    el("td", { text: progressText(row, faceDown) }),
    el("td", { text: String(row.score) }),
    el("td", { text: formatSeconds(row.elapsed_seconds) }),
    el("td", { text: String(row.action_count) }),
    el("td", {}, closed ? el("a", { href: `/challenges/${row.challenge_id}/replays/#game-${row.attempt_id}`,
      "aria-label": `Replay of ${row.username}'s game`, text: "Replay" }) : "–"));
}

// How many rows to show (?limit= on the page's address, as the API allows: 1 to 200).
function pageLimit() {
  const wanted = Number(new URLSearchParams(window.location.search).get("limit"));
  return Number.isInteger(wanted) && wanted >= 1 && wanted <= 200 ? wanted : 100;
}

async function loadDay() {
  const challengeId = Number(root.dataset.challenge);
  const [answer, challenge, who] = await Promise.all([
    api("GET", `leaderboards/challenges/${challengeId}/?limit=${pageLimit()}`),
    api("GET", `challenges/${challengeId}/`),
    me(),
  ]);
  if (!answer.ok) {
    say(answer.status === 404 ? "No such challenge." : errorMessage(answer), "error");
    return;
  }
  const data = answer.data;
  const c = data.challenge;
  const closed = challenge.ok && !challenge.data.open;
  const name = VARIANT_NAMES[c.variant] || c.variant;
  $("board-title").textContent = `Leaderboard: ${name} · ${c.date}`;
  document.title = `Leaderboard ${name} ${c.date} · Astrocyte Daily`;
  $("ranking-caption").textContent = `Ranking of ${name}, ${c.date}`;
  const links = [el("a", { href: `/play/${c.id}/`, text: closed ? "The board" : "Play it" })];
  if (closed) {
    links.push(" · ", el("a", { href: `/challenges/${c.id}/replays/`, text: "Replays and the solution" }),
      " · ", el("a", { href: `/archive/${c.id}/`, text: "Play it again (practice)" }));
  }
  $("board-links").replaceChildren(...links);
  $("counts").textContent = `${data.counts.finished} finished · ${data.counts.playing} playing now`;
  head("#", "Player", "Progress", "Score", "Time", "Actions", "Replay");
  const username = who.authenticated ? who.user.username : null;
  const rows = data.top.map((row) => dayRow({ ...row, challenge_id: c.id }, row.username === username, closed, c.face_down_dealt));
  const mine = data.me;
  const inTop = mine && data.top.some((row) => row.attempt_id === mine.attempt_id);
  if (mine && !inTop) {
    rows.push(el("tr", { class: "gap", "aria-hidden": "true" }, el("td", { colspan: "7", text: "⋮" })));
    rows.push(dayRow({ ...mine, challenge_id: c.id }, true, closed, c.face_down_dealt));
  }
  if (!data.top.length) rows.push(el("tr", {}, el("td", { colspan: "7", text: "Nobody has finished yet." })));
  $("ranking").tBodies[0].replaceChildren(...rows);
  if (mine) {
    $("my-rank").textContent = `Your rank: ${mine.rank} of ${data.counts.finished} (score ${mine.score})`;
  } else if (who.authenticated) {
    $("my-rank").textContent = "You have no finished game on this board.";
  } else {
    $("my-rank").replaceChildren(el("a", { href: `/login/?next=${encodeURIComponent(window.location.pathname)}`, text: "Log in" }), " to see your own rank.");
  }
  say(`${data.top.length} ${data.top.length === 1 ? "player" : "players"} ranked.`);
  if (!closed) followLive(challengeId);
}

// An open day's board follows the day live: each push of the challenge's socket (a game
// finished, voided, progressed) reloads the board from the API, at most once a
// LIVE_RELOAD_MS, so the own rank outside the top stays right too.
const LIVE_RELOAD_MS = 1000;
let following = false;

function followLive(challengeId) {
  if (following) return;
  following = true;
  let timer = 0;
  let lastAt = 0;
  const reload = () => {
    timer = 0;
    lastAt = performance.now();
    loadDay().then(() => { root.dataset.liveReloads = String(Number(root.dataset.liveReloads || 0) + 1); },
      () => {});
  };
  connectLive(challengeId, {
    onMessage(msg) {
      if (msg.type === "snapshot" || timer) return;
      timer = window.setTimeout(reload, Math.max(0, LIVE_RELOAD_MS - (performance.now() - lastAt)));
    },
    onState(state) {
      root.dataset.live = state;
    },
  });
}

async function loadAlltime() {
  const days = $("days").value;
  const [answer, who] = await Promise.all([api("GET", `leaderboards/alltime/?days=${days}&limit=100`), me()]);
  if (!answer.ok) {
    say(errorMessage(answer), "error");
    return;
  }
  head("#", "Player", "Total score", "Days won", "Time of the wins");
  $("ranking-caption").textContent = `All-time ranking, last ${answer.data.days} days`;
  const username = who.authenticated ? who.user.username : null;
  const rows = answer.data.rows.map((row) => el("tr", { class: row.username === username ? "me" : null, "data-rank": String(row.rank) },
    el("td", { text: String(row.rank) }),
    el("td", {}, playerLink(row.username), row.username === username ? " (you)" : ""),
    el("td", { text: String(row.total_score) }),
    el("td", { text: String(row.days) }),
    el("td", { text: formatSeconds(row.total_seconds) })));
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "5", text: "No won dailies in this window." })));
  $("ranking").tBodies[0].replaceChildren(...rows);
  const mine = answer.data.rows.find((row) => row.username === username);
  $("my-rank").textContent = mine ? `Your rank: ${mine.rank}` : "";
  say(`${answer.data.rows.length} players over the last ${answer.data.days} days.`);
}

async function loadStreaks() {
  const variant = $("variant").value;
  const [answer, who] = await Promise.all([api("GET", `leaderboards/streaks/?variant=${encodeURIComponent(variant)}&limit=100`), me()]);
  if (!answer.ok) {
    say(errorMessage(answer), "error");
    return;
  }
  head("#", "Player", "Current streak", "Last won");
  $("ranking-caption").textContent = `Current streaks, ${answer.data.variant}`;
  const username = who.authenticated ? who.user.username : null;
  const rows = answer.data.rows.map((row) => el("tr", { class: row.username === username ? "me" : null, "data-rank": String(row.rank) },
    el("td", { text: String(row.rank) }),
    el("td", {}, playerLink(row.username), row.username === username ? " (you)" : ""),
    el("td", { text: `${row.current} ${row.current === 1 ? "day" : "days"}` }),
    el("td", { text: row.last_won })));
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "4", text: "Nobody is on a streak." })));
  $("ranking").tBodies[0].replaceChildren(...rows);
  const mine = answer.data.rows.find((row) => row.username === username);
  $("my-rank").textContent = mine ? `Your rank: ${mine.rank}` : "";
  say(`${answer.data.rows.length} ${answer.data.rows.length === 1 ? "player" : "players"} on a streak.`);
}

// The rating board: shown rating (mu - 3 sigma), from closed days only.
async function loadRatings() {
  const variant = $("variant").value;
  const [answer, who] = await Promise.all([api("GET", `leaderboards/ratings/?variant=${encodeURIComponent(variant)}&limit=100`), me()]);
  if (!answer.ok) {
    say(errorMessage(answer), "error");
    return;
  }
  head("#", "Player", "Rating", "μ", "σ", "Rated days");
  $("ranking-caption").textContent = `Ratings, ${answer.data.variant}`;
  const username = who.authenticated ? who.user.username : null;
  const rows = answer.data.rows.map((row) => el("tr", { class: row.username === username ? "me" : null, "data-rank": String(row.rank) },
    el("td", { text: String(row.rank) }),
    el("td", {}, playerLink(row.username), row.username === username ? " (you)" : ""),
    el("td", { class: "rating", text: row.rating.toFixed(1) }),
    el("td", { text: row.mu.toFixed(2) }),
    el("td", { text: row.sigma.toFixed(2) }),
    el("td", { text: String(row.rated_days) })));
  if (!rows.length) {
    rows.push(el("tr", {}, el("td", { colspan: "6", text: `Nobody has ${answer.data.min_rated_days} rated days yet.` })));
  }
  $("ranking").tBodies[0].replaceChildren(...rows);
  const mine = answer.data.rows.find((row) => row.username === username);
  $("my-rank").textContent = mine ? `Your rank: ${mine.rank}` : "";
  say(`${answer.data.rows.length} rated ${answer.data.rows.length === 1 ? "player" : "players"}.`);
}

const loaders = { alltime: () => loadAlltime(), streaks: () => loadStreaks(), ratings: () => loadRatings() };

async function load() {
  try {
    await (loaders[mode] || loadDay)();
  } catch {
    say("No connection to the server: reload to try again.", "error");
  }
  root.dataset.ready = "true";
}

if (mode === "alltime") $("days").addEventListener("change", () => { root.dataset.ready = "false"; load(); });
if (mode === "streaks" || mode === "ratings") $("variant").addEventListener("change", () => { root.dataset.ready = "false"; load(); });
load();
