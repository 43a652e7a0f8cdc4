// Home: today's challenges (from the API), a countdown to 00:00 UTC, live player counts.
import { api, el, errorMessage, formatSeconds, me, VARIANT_NAMES } from "./api.js";
import { dayBefore, topThreeText, yesterdayText } from "./home/summary.js";
import { connectLive, PlayingSet } from "./live.js";

const list = document.getElementById("challenges");
const message = document.getElementById("today-message");
const countdown = document.getElementById("countdown");

// The countdown counts down the server's seconds_left, which is rounded down: it may reach
// zero up to a second before 00:00 UTC. So zero only starts asking the server for today's
// date, and the page reloads once, when that date has changed (not on the count).
const POLL_MS = 500;
const POLL_SLOW_MS = 5000; // after a minute without a new date (server down or late)
let timer = 0;

function startCountdown(today) {
  window.clearTimeout(timer);
  const end = performance.now() + today.seconds_left * 1000;
  const tick = () => {
    const left = (end - performance.now()) / 1000;
    countdown.textContent = formatSeconds(Math.ceil(left));
    if (left <= 0) {
      waitForNewDay(today.date, performance.now());
      return;
    }
    timer = window.setTimeout(tick, 1000 - ((end - performance.now()) % 1000));
  };
  tick();
}

// Ask for today's date until it differs from the page's; a same-day answer with time left
// (a suspended tab, a slow clock) restarts the countdown instead.
async function waitForNewDay(date, since) {
  window.clearTimeout(timer);
  let answer = null;
  try {
    answer = await api("GET", "challenges/today/");
  } catch {
    // no connection: ask again
  }
  if (answer && answer.ok && answer.data.date !== date) {
    window.location.reload();
    return;
  }
  if (answer && answer.ok && answer.data.seconds_left > 1) {
    startCountdown(answer.data);
    return;
  }
  const wait = performance.now() - since < 60000 ? POLL_MS : POLL_SLOW_MS;
  timer = window.setTimeout(() => waitForNewDay(date, since), wait);
}

function attemptText(attempt) {
  if (!attempt) return "Not started";
  if (!attempt.over) return `In progress: ${attempt.action_count} actions`;
  const how = attempt.won ? "Won" : attempt.end_reason === "resigned" ? "Resigned" : "Closed";
  return `${how}: score ${attempt.score}`;
}

async function load() {
  let answer;
  try {
    answer = await api("GET", "challenges/today/");
  } catch {
    message.textContent = "No connection to the server; retrying…";
    window.setTimeout(load, 3000);
    return;
  }
  if (!answer.ok) {
    message.textContent = errorMessage(answer);
    return;
  }
  const today = answer.data;
  startCountdown(today);
  // A tab that slept (a laptop's lid closed over midnight) checks the date on waking.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") waitForNewDay(today.date, performance.now());
  });
  const who = await me();
  message.textContent = today.message || `${today.date} (UTC)`;
  if (today.preparing && today.preparing.length) showPreparing(today);
  for (const challenge of today.challenges) {
    const count = el("span", { class: "count", text: "…" });
    const best = el("p", { class: "top-three", text: "The top three: …" });
    const mine = challenge.my_attempt;
    const action = mine && !mine.over ? "Continue" : mine ? "See the board" : "Play";
    const item = el("li", { class: "challenge" },
      el("h3", { text: VARIANT_NAMES[challenge.variant] || challenge.variant }),
      el("p", { class: "meta" },
        challenge.difficulty ? `${challenge.difficulty} · ` : "",
        challenge.par ? `par ${challenge.par} · ` : "",
        count, " playing now"),
      who.authenticated ? el("p", { class: "mine", text: attemptText(mine) }) : null,
      best,
      el("a", {
        class: "button", href: `/play/${challenge.id}/`,
        "aria-label": `${action}: ${VARIANT_NAMES[challenge.variant] || challenge.variant} of ${challenge.date}`,
        text: action,
      }), " ",
      el("a", { href: `/leaderboards/${challenge.id}/`,
        "aria-label": `Leaderboard: ${VARIANT_NAMES[challenge.variant] || challenge.variant} of ${challenge.date}`,
        text: "Leaderboard" }));
    list.append(item);
    const playing = new PlayingSet();
    connectLive(challenge.id, {
      onMessage(msg) {
        playing.apply(msg);
        count.textContent = String(playing.count);
        // the snapshot and every new board carry the top: the top three follow it live
        if (msg.top) best.textContent = `The top three: ${topThreeText(msg.top)}`;
      },
      onState() {},
    });
  }
  const variants = [...new Set(today.challenges.map((c) => c.variant))];
  if (who.authenticated) showStreak(who.user.username, variants);
  if (who.authenticated) showYesterday(today.date, variants);
  if (!who.authenticated) {
    list.after(el("p", { class: "cta" },
      el("a", { href: "/signup/", text: "Sign up" }), " or ",
      el("a", { href: "/login/", text: "log in" }), " to play the ranked dailies."));
  }
}

// A daily of today not open yet (a fresh install proving its first deal): say how far the
// solver has got, ask again every PREPARING_POLL_MS, and open the day (reload) once the
// server lists more of today's challenges than this page shows.
const PREPARING_POLL_MS = 2000;
const PHASES = {
  waiting: "waiting for a candidate deal",
  queued: "waiting for the solver",
  proving: "the solver is proving it winnable",
  shortening: "proven winnable; the solver is looking for a shorter par",
};

function preparingText(entry) {
  const name = VARIANT_NAMES[entry.variant] || entry.variant;
  const parts = [PHASES[entry.phase] || entry.phase];
  if (entry.seconds !== null && entry.seconds !== undefined) parts.push(`${Math.round(entry.seconds)} s`);
  if (entry.positions) parts.push(`${entry.positions.toLocaleString("en")} positions`);
  return `${name}: ${parts.join(", ")}`;
}

function showPreparing(today) {
  const shown = today.challenges.length;
  const box = el("ul", { id: "preparing", class: "preparing", "aria-live": "polite" });
  const render = (entries) => box.replaceChildren(...entries.map((e) => el("li", { text: preparingText(e) })));
  render(today.preparing);
  message.after(box);
  const poll = async () => {
    let answer = null;
    try {
      answer = await api("GET", "challenges/today/");
    } catch {
      // no connection: ask again
    }
    if (answer && answer.ok) {
      if (answer.data.date !== today.date || answer.data.challenges.length > shown) {
        window.location.reload();
        return;
      }
      render(answer.data.preparing || []);
    }
    window.setTimeout(poll, PREPARING_POLL_MS);
  };
  window.setTimeout(poll, PREPARING_POLL_MS);
}

// The player's streaks of days won, for each variant of today's dailies (the leaderboards
// API, one variant a call).
async function showStreak(username, variants) {
  const path = `leaderboards/players/${encodeURIComponent(username)}/`;
  let answers;
  try {
    answers = await Promise.all(variants.length
      ? variants.map((v) => api("GET", `${path}?variant=${encodeURIComponent(v)}`))
      : [api("GET", path)]);
  } catch {
    return;
  }
  const streaks = answers.filter((a) => a.ok).flatMap((a) => a.data.streaks);
  if (!streaks.length) return;
  const node = document.getElementById("streak");
  const parts = streaks.map((s) =>
    `${VARIANT_NAMES[s.variant] || s.variant}: ${s.current} ${s.current === 1 ? "day" : "days"} (best ${s.best})`);
  node.replaceChildren("Your streak of days won — ", parts.join(" · "), " · ",
    el("a", { href: `/players/${encodeURIComponent(username)}/`, text: "your profile" }));
  node.hidden = false;
}

// The player's result of yesterday's daily of each of today's variants (the archive lists
// the past dailies; the day's board has the player's row), once that day is over for all.
async function showYesterday(date, variants) {
  const yesterday = dayBefore(date);
  const lines = [];
  for (const variant of variants) {
    try {
      const month = await api("GET", `archive/?variant=${encodeURIComponent(variant)}&month=${yesterday.slice(0, 7)}`);
      const day = month.ok ? month.data.days.find((d) => d.date === yesterday) : null;
      if (!day) continue;
      const board = await api("GET", `leaderboards/challenges/${day.challenge_id}/?limit=1`);
      if (board.ok) lines.push({ text: yesterdayText(VARIANT_NAMES[variant] || variant, board.data), id: day.challenge_id });
    } catch {
      return; // no connection: the summary is not worth a retry
    }
  }
  if (!lines.length) return;
  const node = document.getElementById("yesterday");
  node.replaceChildren(...lines.map(({ text, id }) =>
    el("p", {}, text, " ", el("a", { href: `/leaderboards/${id}/`, text: "Yesterday's board" }))));
  node.hidden = false;
}

load();
