// Replays: the owner's finished game (/replay/<attempt>/) and, once a day is over, everyone's
// games and the solver's solution (/challenges/<id>/replays/). Everything comes from the API:
// the full deal from the server's revealed start_state, the final position from the server.
// No API returns the position after k actions of a log, so the moves are listed, not stepped
// through on the board (see docs/frontend.md); the client replays nothing itself.
import { api, el, errorMessage, formatSeconds, me, VARIANT_NAMES } from "./api.js";
import { pileName, renderBoard, renderCardRow } from "./board.js";

const root = document.getElementById("replay");
const $ = (id) => document.getElementById(id);
const mode = root.dataset.mode;
const id = Number(root.dataset.id);

function say(text, kind = "info") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

const MOVE = /^([tcf]\d+)-([tcf]\d+)(?::(\d+))?$/;

// Words for a move's notation (for reading it, not judging it).
export function moveWords(action) {
  const m = MOVE.exec(action);
  if (action === "deal") return "Deal from the stock";
  if (action === "undo") return "Undo";
  if (!m) return action;
  const n = m[3] ? Number(m[3]) : 1;
  return `${n > 1 ? `${n} cards` : "A card"} from ${pileName(m[1]).toLowerCase()} to ${pileName(m[2]).toLowerCase()}`;
}

function moveList(list, log, times) {
  list.replaceChildren(...log.map((action, i) => el("li", { "data-action": action },
    el("code", { text: action }), " ",
    el("span", { text: moveWords(action) }),
    times && times[i] !== undefined ? el("span", { class: "at", text: ` at ${formatSeconds(times[i])}` }) : null)));
}

function dealsIn(state) {
  return state.tableau.length ? Math.floor(state.stock.length / state.tableau.length) : 0;
}

function showDeal(start) {
  renderBoard($("deal-board"), start, { reveal: true, dealsLeft: dealsIn(start) });
  if (start.stock.length) {
    renderCardRow($("deal-stock"), start.stock, `Stock: ${start.stock.length} cards, in dealing order`);
  } else {
    $("stock-title").hidden = true;
  }
  $("deal").hidden = false;
}

function outcome(row) {
  if (row.won) return "Won";
  return { resigned: "Resigned", day_closed: "Day closed" }[row.end_reason] || "Not won";
}

function summaryList(rows) {
  const list = el("dl", { class: "parts" });
  for (const [name, value] of rows) list.append(el("dt", { text: name }), el("dd", { text: String(value) }));
  return list;
}

function links(...items) {
  $("replay-links").replaceChildren(...items.flatMap((item, i) => (i ? [" · ", item] : [item])));
}

async function loadAttempt() {
  const who = await me();
  if (!who.authenticated) {
    say("Sign in to see the replays of your games.");
    links(el("a", { href: `/login/?next=${encodeURIComponent(window.location.pathname)}`, text: "Log in" }));
    return;
  }
  const answer = await api("GET", `attempts/${id}/`);
  if (!answer.ok) {
    say(answer.status === 404 ? "No game of yours has this number." : errorMessage(answer), "error");
    return;
  }
  const a = answer.data;
  const name = VARIANT_NAMES[a.variant] || a.variant;
  const when = a.kind === "practice" ? "practice" : a.date;
  $("replay-title").textContent = `Replay: ${name} · ${when}`;
  document.title = `Replay ${name} ${when} · Astrocyte Daily`;
  const related = [];
  if (a.challenge_id) {
    related.push(el("a", { href: `/leaderboards/${a.challenge_id}/`, text: "The day's leaderboard" }));
    if (a.seed) related.push(el("a", { href: `/challenges/${a.challenge_id}/replays/`, text: "Everyone's games and the solution" }));
  }
  if (!a.over) {
    say("This game is not over yet: its replay opens when it ends.");
    related.unshift(el("a", { href: a.challenge_id ? `/play/${a.challenge_id}/` : `/practice/?attempt=${a.id}`, text: "Go on playing" }));
    links(...related);
    return;
  }
  links(...related);
  $("summary-body").replaceChildren(
    el("p", { class: "outcome", text: `${outcome(a)}${a.voided ? " (voided)" : ""}` }),
    summaryList([["Score", a.score], ["Actions", a.action_count], ["Time", formatSeconds(a.elapsed_seconds)],
      ["Runs completed", `${a.runs_completed} of 8`], ["Kind", a.kind === "ranked" ? "ranked daily" : "practice"]]));
  $("summary").hidden = false;
  showDeal(a.start_state);
  renderBoard($("final-board"), a.state, { dealsLeft: a.deals_left });
  $("final").hidden = false;
  moveList($("moves"), a.log, a.action_times);
  $("moves-title").textContent = `Moves (${a.log.length})`;
  $("moves-section").hidden = false;
  say(`${outcome(a)}: ${a.action_count} actions, score ${a.score}.`);
}

async function loadChallenge() {
  const answer = await api("GET", `challenges/${id}/`);
  if (!answer.ok) {
    say(answer.status === 404 ? "No such challenge." : errorMessage(answer), "error");
    return;
  }
  const c = answer.data;
  const name = VARIANT_NAMES[c.variant] || c.variant;
  $("replay-title").textContent = `Replays: ${name} · ${c.date}`;
  document.title = `Replays ${name} ${c.date} · Astrocyte Daily`;
  links(el("a", { href: `/leaderboards/${c.id}/`, text: "The day's leaderboard" }),
    el("a", { href: `/play/${c.id}/`, text: c.open ? "Play it" : "The board" }));
  if (!c.revealed) {
    say(`The games and the solution are public once the day is over (in ${formatSeconds(c.seconds_left)}).`);
    return;
  }
  const r = c.revealed;
  showDeal(r.start_state);
  moveList($("solution"), r.solution);
  $("solution-meta").replaceChildren(
    `${r.solution.length} actions. Seed ${r.seed}, nonce `, el("code", { text: r.nonce }),
    `; commitment sha256("${c.variant}:seed:nonce") = `, el("code", { class: "hash", text: c.commitment }), ".");
  $("solution-section").hidden = false;
  const games = await api("GET", `challenges/${id}/attempts/`);
  if (!games.ok) {
    say(errorMessage(games), "error");
    return;
  }
  const rows = games.data.attempts;
  $("games-title").textContent = `Everyone's games (${rows.length})`;
  $("games").replaceChildren(...(rows.length ? rows.map((row, i) => {
    const list = el("ol", { class: "moves" });
    moveList(list, row.log, row.action_times);
    return el("details", { class: "game", id: `game-${row.id}`, "data-username": row.username },
      el("summary", {},
        el("b", { text: `${i + 1}. ${row.username}` }),
        ` — ${outcome(row)}, score ${row.score}, ${row.action_count} actions, ` +
        `${formatSeconds(row.elapsed_seconds || 0)}, ${row.runs_completed} of 8 runs`),
      list);
  }) : [el("p", { text: "Nobody finished a game that day." })]));
  $("games-section").hidden = false;
  const wanted = window.location.hash && document.querySelector(window.location.hash.replace(/[^#\w-]/g, ""));
  if (wanted && wanted.tagName === "DETAILS") wanted.open = true;
  say(`The day is over: the full deal, the solution and ${rows.length} ${rows.length === 1 ? "game" : "games"}.`);
}

async function load() {
  try {
    await (mode === "challenge" ? loadChallenge() : loadAttempt());
  } catch {
    say("No connection to the server: reload to try again.", "error");
  }
  root.dataset.ready = "true";
}

load();
