// What the play page shows beside the board, drawn from the server's data: the result and
// its share text, the live leaderboard and who is playing, a hint in words. The text is
// built by pure functions (unit-tested); the render functions only put it in the page.
// $: document.getElementById.
import { el, formatSeconds, progressText, VARIANT_NAMES } from "../api.js";
import { pileName } from "../board.js";
import { describeCards, parseAction } from "./moves.js";

// --- result and share -----------------------------------------------------------------

export function outcomeText(attempt) {
  if (attempt.won) return "You won!";
  return attempt.end_reason === "resigned" ? "You resigned." : "The day closed.";
}

// The text to share, Wordle-like: the day and variant; a grid of the eight runs (one square
// per run, filled when it went home) with the outcome; actions, time, score, rank; the day's
// board to follow (a daily's only). Never a card.
export const RUNS = 8;

export function runsGrid(runsCompleted) {
  const home = Math.max(0, Math.min(RUNS, runsCompleted || 0));
  return "🟩".repeat(home) + "⬜".repeat(RUNS - home);
}

// A game not won: how far it got in the deal's face-down cards, in tenths (🟧 turned up).
export function turnedUpGrid(turned, faceDown) {
  const tenths = faceDown ? Math.max(0, Math.min(10, Math.round((10 * (turned || 0)) / faceDown))) : 0;
  return "🟧".repeat(tenths) + "⬛".repeat(10 - tenths);
}

export function shareText(attempt, rank, origin = "", boardSize = null) {
  const variant = VARIANT_NAMES[attempt.variant] || attempt.variant;
  if (attempt.kind === "practice") rank = null; // unranked, even a past daily's (the archive)
  const day = attempt.kind === "practice" && attempt.date ? `archive ${attempt.date}` : attempt.date || "practice";
  const outcome = attempt.won ? "won" : attempt.end_reason === "resigned" ? "resigned" : "not won";
  const runs = attempt.won ? RUNS : attempt.runs_completed || 0;
  const lines = [`Astrocyte Daily ${day} · ${variant}`, `${runsGrid(runs)} ${runs}/${RUNS} runs home · ${outcome}`];
  if (!attempt.won && attempt.face_down_dealt) {
    lines.push(`${turnedUpGrid(attempt.cards_turned_up, attempt.face_down_dealt)} ` +
      `${attempt.cards_turned_up || 0}/${attempt.face_down_dealt} cards turned up`);
  }
  lines.push(`${attempt.action_count} actions · ${formatSeconds(attempt.elapsed_seconds)} · score ${attempt.scoreTotal}` +
    (rank ? ` · rank ${rank}${boardSize ? ` of ${boardSize}` : ""}` : ""));
  if (attempt.kind === "ranked" && attempt.challenge_id && origin) {
    lines.push(`${origin}/leaderboards/${attempt.challenge_id}/`);
  }
  return lines.join("\n");
}

// The rank row's value: the board's rank of a daily; for a game of the archive (practice of
// a past daily: wouldRank, the server's answer) where it would have ranked that day.
export function rankText(attempt, rank, wouldRank, boardSize = null) {
  if (attempt.kind === "ranked") return rank ? `${rank}${boardSize ? ` of ${boardSize}` : ""}` : "…";
  if (attempt.race) return "the race's results give the place";
  if (!attempt.challenge_id) return "practice: unranked";
  if (!wouldRank) return "…";
  return wouldRank.rank ? `would have been ${wouldRank.rank} of ${wouldRank.of} that day` : "not ranked (no action)";
}

// The result's rows [name, value]: the score, its parts when the last answer's parts add
// up to it, time, actions, rank.
export function resultRows(attempt, scoreParts, rank, wouldRank = null, boardSize = null) {
  const rows = [["Score", attempt.scoreTotal]];
  if (scoreParts && scoreParts.total === attempt.scoreTotal) {
    rows.push(
      ["Base", scoreParts.base],
      ["Actions", `−${scoreParts.actions}`],
      ["Time", `−${scoreParts.time_penalty}`],
      [`Foundations (${scoreParts.foundations})`, `+${scoreParts.foundation_bonus}`],
      ["Win bonus", `+${scoreParts.win_bonus}`],
    );
  }
  rows.push(["Time played", formatSeconds(attempt.elapsed_seconds)], ["Actions played", attempt.action_count]);
  if (!attempt.won && attempt.face_down_dealt) {
    rows.push(["Progress", `${attempt.runs_completed || 0}/${RUNS} runs home · ${attempt.cards_turned_up || 0}/${attempt.face_down_dealt} cards turned up`]);
  }
  rows.push(["Rank", rankText(attempt, rank, wouldRank, boardSize)]);
  return rows;
}

// The player's record after a ranked daily, in one line: played, won (and the rate), the
// streak of days won in this variant. `answer`: GET leaderboards/players/<me>/?variant=.
export function statsText(answer, variant) {
  if (!answer || !answer.stats) return "";
  const { played, won, win_rate: rate } = answer.stats;
  const streak = (answer.streaks || []).find((s) => s.variant === variant);
  const parts = [`Played ${played}`, `Won ${won}${rate === null || rate === undefined ? "" : ` (${Math.round(rate * 100)}%)`}`];
  if (streak) parts.push(`Streak ${streak.current} ${streak.current === 1 ? "day" : "days"} (best ${streak.best})`);
  return parts.join(" · ");
}

// The player's rating after a ranked daily: the change the day brought once it is rated
// (days are rated after they close), else the rating now and when it updates.
// `answer`: GET leaderboards/ratings/attempts/<id>/.
export function ratingText(answer) {
  if (!answer) return "";
  const change = answer.change;
  if (change) {
    return `Rating ${change.rating_before.toFixed(1)} → ${change.rating.toFixed(1)} (rank ${change.rank} of ${change.players} that day)`;
  }
  const now = answer.current
    ? `Rating ${answer.current.rating.toFixed(1)} after ${answer.current.rated_days} rated ${answer.current.rated_days === 1 ? "day" : "days"}.`
    : "No rating yet.";
  return `${now} ${answer.message}`;
}

// The player's record as a stats screen (NYT Games' shape): played, win %, the streak now
// and at best, and how their games ended (runs home; a win is 8), this one marked.
// `answer`: GET leaderboards/players/<me>/?variant=. Null when there is none yet.
export function statsScreen(answer, variant, attempt) {
  if (!answer || !answer.stats || !answer.stats.played) return null;
  const { played, win_rate: rate, runs_histogram: histogram } = answer.stats;
  const streak = (answer.streaks || []).find((s) => s.variant === variant) || { current: 0, best: 0 };
  const counts = new Map((histogram || []).map((row) => [row.runs_completed, row.count]));
  const mine = attempt.won ? RUNS : attempt.runs_completed || 0;
  const bars = [];
  for (let runs = 0; runs <= RUNS; runs += 1) {
    bars.push({ label: runs === RUNS ? "won" : `${runs} ${runs === 1 ? "run" : "runs"}`, count: counts.get(runs) || 0, mine: runs === mine });
  }
  return {
    numbers: [
      ["Played", played],
      ["Win %", rate === null || rate === undefined ? 0 : Math.round(rate * 100)],
      ["Current streak", streak.current],
      ["Best streak", streak.best],
    ],
    bars,
  };
}

function renderStats(screen) {
  const most = Math.max(1, ...screen.bars.map((bar) => bar.count));
  return el("section", { id: "result-stats", class: "stats-screen", "aria-labelledby": "stats-title" },
    el("h3", { id: "stats-title", text: "Statistics" }),
    el("dl", { class: "stats-numbers" }, ...screen.numbers.flatMap(([name, value]) =>
      [el("div", {}, el("dd", { text: String(value) }), el("dt", { text: name }))])),
    el("h4", { text: "How your games ended" }),
    el("ol", { class: "stats-bars" }, ...screen.bars.map((bar) => el("li",
      { class: bar.mine ? "mine" : null, "aria-label": `${bar.label}: ${bar.count}${bar.mine ? " (this game)" : ""}` },
      el("span", { class: "bar-label", "aria-hidden": "true", text: bar.label }),
      el("span", { class: "bar-track", "aria-hidden": "true" },
        el("span", { class: "bar", style: `width: ${Math.round((100 * bar.count) / most)}%` })),
      el("span", { class: "bar-count", "aria-hidden": "true", text: String(bar.count) })))));
}

export function renderResult($, { attempt, scoreParts, rank, wouldRank, stats = null, rating = null, boardSize = null }) {
  const firstShown = $("result").hidden;
  $("result").hidden = false;
  const list = el("dl", { class: "parts" });
  for (const [name, value] of resultRows(attempt, scoreParts, rank, wouldRank, boardSize)) {
    list.append(el("dt", { text: name }), el("dd", { text: String(value) }));
  }
  const ranked = attempt.kind === "ranked";
  // (replaceChildren, unlike el, would write a null child as the text "null")
  const screen = ranked ? statsScreen(stats, attempt.variant, attempt) : null;
  const rated = ranked ? ratingText(rating) : "";
  const parts = [el("p", { class: "outcome", text: outcomeText(attempt) }),
    wouldRank ? el("p", { id: "would-rank", class: "would-rank", text: wouldRank.message }) : null, list,
    screen ? renderStats(screen) : null,
    rated ? el("p", { id: "result-rating", class: "record", text: rated }) : null,
    el("p", {}, el("a", { href: `/replay/${attempt.id}/`, text: "See the replay of this game" }),
      ranked ? " · " : null,
      ranked ? el("a", { href: `/leaderboards/${attempt.challenge_id}/`, text: "the day's leaderboard" }) : null)];
  $("result-body").replaceChildren(...parts.filter(Boolean));
  $("share").value = shareText(attempt, rank, window.location.origin, boardSize);
  if (firstShown) {
    // The end of a game is a moment: the result comes into view and takes the focus, so that
    // a screen reader says it too.
    $("result").scrollIntoView({ block: "start", behavior: "smooth" });
    $("result-title").focus({ preventScroll: true });
  }
}

// --- hints (practice): the server's suggestion, drawn and said; never checked here ----------

// What the board highlights for a hinted action: the cards to move and where they go, or
// the stock for a deal.
export function hintMark(action) {
  const move = parseAction(action);
  return move ? { ...move, action } : { src: action === "deal" ? "stock" : null, dst: null, n: 0, action };
}

// The hint in words, followed by the server's own sentence.
export function hintText(view, action, message) {
  const move = parseAction(action);
  const text = move
    ? `Hint: move ${describeCards(view, move.src, move.n)} from ${pileName(move.src).toLowerCase()} to ${pileName(move.dst).toLowerCase()} (${action}).`
    : `Hint: ${action}.`;
  return `${text} ${message}`;
}

// --- live panel -------------------------------------------------------------------------

export function liveStateText(state, delay) {
  return {
    connecting: "Live: connecting…",
    open: "Live",
    closed: "Live updates unavailable",
    retrying: `Live: reconnecting in ${Math.ceil((delay || 0) / 1000)} s…`,
  }[state];
}

// A league's board (its snapshot names the league, its pushes carry league_id) ranks
// within the league.
export function myRankLabel(message) {
  return message.league || message.league_id ? "Your rank in the league" : "Your rank";
}

// The rows of a day's board (the live panel's, or the archive's board of a past day).
// faceDown: the challenge's face_down_dealt (its snapshot's), what cards turned up count against.
let boardFaceDown = null;

export function renderBoardRows($, top, user, empty, faceDown = boardFaceDown) {
  const body = $("leaderboard").tBodies[0];
  body.replaceChildren(...top.map((row) => el("tr",
    { class: user && row.username === user.username ? "me" : null },
    el("td", { text: String(row.rank) }),
    el("td", { text: row.username }),
    el("td", { text: progressText(row, faceDown) }),
    el("td", { text: String(row.score) }),
    el("td", { text: formatSeconds(row.elapsed_seconds) }),
    el("td", { text: String(row.action_count) }))));
  if (!top.length) body.append(el("tr", {}, el("td", { colspan: "6", text: empty })));
}

// Draw one live message (a snapshot, or a board or progress push; `playing` is the page's
// PlayingSet, updated here). Returns the watcher's own rank when the message has it.
export function renderLive($, message, { user, playing }) {
  let rank = null;
  if (message.challenge && message.challenge.face_down_dealt) boardFaceDown = message.challenge.face_down_dealt;
  if (message.type === "snapshot" || message.type === "board") {
    renderBoardRows($, message.top, user, "Nobody has finished yet.");
    if (message.me) {
      rank = message.me.rank;
      $("my-rank").textContent = `${myRankLabel(message)}: ${message.me.rank} (score ${message.me.score})`;
    }
  }
  playing.apply(message);
  $("playing-count").textContent = `(${playing.count})`;
  const rows = playing.list();
  $("playing").replaceChildren(...(rows.length ? rows.map((row) => el("li",
    { "data-player": row.username },
    el("b", { text: row.username }),
    ` ${progressText(row, boardFaceDown)} · ${row.action_count} actions · ${row.deals_left} ${row.deals_left === 1 ? "deal" : "deals"} left`))
    : [el("li", { text: "Nobody is playing right now." })]));
  return rank;
}
