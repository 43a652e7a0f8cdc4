// Home: today's challenges (from the API), a countdown to 00:00 UTC, live player counts.
import { api, el, errorMessage, formatSeconds, me, VARIANT_NAMES } from "./api.js";
import { connectLive, PlayingSet } from "./live.js";

const list = document.getElementById("challenges");
const message = document.getElementById("today-message");
const countdown = document.getElementById("countdown");

function startCountdown(secondsLeft) {
  const end = performance.now() + secondsLeft * 1000;
  const tick = () => {
    const left = (end - performance.now()) / 1000;
    countdown.textContent = formatSeconds(left);
    if (left <= 0) {
      window.location.reload();
      return;
    }
    window.setTimeout(tick, 1000 - ((end - performance.now()) % 1000));
  };
  tick();
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
  startCountdown(today.seconds_left);
  const who = await me();
  message.textContent = today.message || `${today.date} (UTC)`;
  for (const challenge of today.challenges) {
    const count = el("span", { class: "count", text: "…" });
    const mine = challenge.my_attempt;
    const action = mine && !mine.over ? "Continue" : mine ? "See the board" : "Play";
    const item = el("li", { class: "challenge" },
      el("h3", { text: VARIANT_NAMES[challenge.variant] || challenge.variant }),
      el("p", { class: "meta" },
        challenge.difficulty ? `${challenge.difficulty} · ` : "",
        challenge.par ? `par ${challenge.par} · ` : "",
        count, " playing now"),
      who.authenticated ? el("p", { class: "mine", text: attemptText(mine) }) : null,
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
      },
      onState() {},
    });
  }
  if (who.authenticated) showStreak(who.user.username, [...new Set(today.challenges.map((c) => c.variant))]);
  if (!who.authenticated) {
    list.after(el("p", { class: "cta" },
      el("a", { href: "/signup/", text: "Sign up" }), " or ",
      el("a", { href: "/login/", text: "log in" }), " to play the ranked dailies."));
  }
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

load();
