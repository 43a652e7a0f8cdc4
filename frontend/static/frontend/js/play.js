// The play page (a daily, or practice with data-mode="practice"): its buttons, its live
// panel and its start-up. The board from the server's state, moves as the server lists
// them, the clock and score from the server: no rules of its own. The parts, by job:
// play/game.js (the game and its moves), play/input.js (board input), play/actions.js
// (posting actions, retries), play/panels.js (result, hint, live panel), play/moves.js and
// play/focus.js (notation and keyboard focus), play/attempt.js (the attempt's data).
import { api, el, errorCode, errorMessage, formatSeconds, me, VARIANT_NAMES } from "./api.js";
import { connectLive, PlayingSet } from "./live.js";
import { createGame, sleep } from "./play/game.js";
import { attachBoardInput, attachShortcutKeys } from "./play/input.js";
import { attachResign } from "./play/resign.js";
import { hintMark, hintText, liveStateText, renderBoardRows, renderLive } from "./play/panels.js";

const root = document.getElementById("play");
const $ = (id) => document.getElementById(id);
const practice = root.dataset.mode === "practice";
// The archive: a past daily's deal played again as practice, that day's board beside it.
const archive = root.dataset.mode === "archive";
const challengeId = practice ? null : Number(root.dataset.challenge);
const game = createGame({ $, practice, challengeId });
const { S, say } = game;

attachBoardInput(game);
attachShortcutKeys(game, toggleHelp);

// --- buttons ----------------------------------------------------------------------------

function toggleHelp(force) {
  const help = $("help");
  help.hidden = force === undefined ? !help.hidden : !force;
  $("help-button").setAttribute("aria-expanded", String(!help.hidden));
}

$("undo").addEventListener("click", game.undo);
$("deal").addEventListener("click", game.deal);
$("help-button").addEventListener("click", () => toggleHelp());

$("finish").addEventListener("click", () => game.finish());

attachResign($("resign"), game, async (answer) => {
  if (errorCode(answer) === "attempt_over") await game.reloadAttempt();
  else say(errorMessage(answer), "error");
});

// Practice starts on the variant the player chose last time (this browser), else the
// first the practice pool offers: never on a blank choice.
const VARIANT_KEY = "astrocyte-practice-variant";

function rememberVariant(variant) {
  try {
    window.localStorage.setItem(VARIANT_KEY, variant);
  } catch {
    /* storage off: the first variant next time */
  }
}

if (practice) {
  let last = null;
  try {
    last = window.localStorage.getItem(VARIANT_KEY);
  } catch {
    last = null;
  }
  const menu = $("variant");
  if (last && [...menu.options].some((option) => option.value === last)) menu.value = last;
}

$("start").addEventListener("click", async () => {
  const button = $("start");
  button.disabled = true;
  try {
    if (practice) rememberVariant($("variant").value);
    const answer = practice
      ? await api("POST", "practice/start/", { variant: $("variant").value })
      : await api("POST", `challenges/${challengeId}/${archive ? "practice" : "start"}/`);
    if (!answer.ok) {
      // The server's words, a 503 no_practice_deal included (api.js: a JSON 5xx is an answer).
      say(errorMessage(answer), "error");
      button.disabled = false;
      return;
    }
    game.adoptAttempt(answer.data);
    button.hidden = true;
    if (practice || archive) {
      // The address names the attempt, so that a reload goes on with it.
      window.history.replaceState(null, "", `?attempt=${answer.data.id}`);
    }
    if (practice) {
      $("practice-setup").hidden = true;
      showTitle(answer.data.variant, "practice");
    }
    say("The clock is running. Good luck!");
    game.render();
    game.focusCurrent();
  } catch {
    say("No connection: the game did not start. Try again.", "error");
    button.disabled = false;
  }
});

// Hints (practice only): the server's solver suggests; the page only draws it.
async function askHint() {
  if (!practice || !game.playing() || S.busy) return;
  $("hint").disabled = true;
  say("Asking the solver for a hint…");
  try {
    const answer = await api("GET", `attempts/${S.attempt.id}/hint/`);
    if (!answer.ok) {
      // 503 hints_busy and 409 hint_budget_spent: the server's words; a 429 (a rate only a
      // program asking without pause meets) in plain words.
      say(answer.status === 429 ? "Hints are coming too fast: wait a moment, then ask again." : errorMessage(answer), "error");
      return;
    }
    const { action, message, hints_left: left } = answer.data;
    S.hint = action ? hintMark(action) : null;
    const leftText = left <= 10 ? ` ${left} ${left === 1 ? "hint" : "hints"} left in this game.` : "";
    if (action) say(`${hintText(game.view(), action, message)}${leftText}`);
    else say(`${message}${leftText}`, "error");
  } catch {
    say("No connection: no hint. Try again.", "error");
  } finally {
    game.render();
  }
}

if (practice) $("hint").addEventListener("click", askHint);

$("copy-share").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("share").value);
    say("Share text copied.");
  } catch {
    $("share").select();
  }
});

// --- live panel (dailies) ---------------------------------------------------------------

// The board of everyone, or of one of the player's leagues (the switch; ?league=<id>).
let live = null;

function startLive(leagueId = null) {
  if (live) live.close();
  S.leagueId = leagueId;
  S.playing = new PlayingSet();
  $("my-rank").textContent = "";
  live = connectLive(challengeId, {
    leagueId,
    onMessage(message) {
      if (message.type === "day_closed") {
        dayClosed();
        return;
      }
      const rank = renderLive($, message, { user: S.user, playing: S.playing });
      // The result shows the rank on the day's board, not within a league.
      if (rank === null || S.leagueId) return;
      S.rank = rank;
      if (message.counts) S.boardSize = message.counts.finished;
      if (S.attempt && S.attempt.over) game.showResult();
    },
    onState(state, delay) {
      $("live-state").textContent = liveStateText(state, delay);
      $("live-state").dataset.state = state;
    },
  });
}

async function offerLeagues() {
  if (!S.user) return null;
  const answer = await api("GET", "leagues/").catch(() => null);
  if (!answer || !answer.ok || !answer.data.length) return null;
  const select = $("board-scope");
  select.append(...answer.data.map((league) => el("option", { value: String(league.id), text: league.name })));
  $("board-scope-row").hidden = false;
  select.addEventListener("change", () => startLive(Number(select.value) || null));
  const wanted = new URLSearchParams(window.location.search).get("league");
  if (answer.data.some((league) => String(league.id) === wanted)) {
    select.value = wanted;
    return Number(wanted);
  }
  return null;
}

// --- the day's end (dailies) ---------------------------------------------------------------

// The countdown to the day's end, from the server's seconds_left (rounded down: it may end
// up to a second early, so the game stops then and the server's close says the rest).
let dayEndsAt = null; // performance.now() at the day's end

function startDayCountdown(secondsLeft) {
  if (!(secondsLeft > 0)) return;
  dayEndsAt = performance.now() + secondsLeft * 1000;
  $("day-left-box").hidden = false;
  tickDayCountdown();
}

function tickDayCountdown() {
  if (dayEndsAt === null) return;
  const left = (dayEndsAt - performance.now()) / 1000;
  $("day-left").textContent = formatSeconds(Math.max(0, Math.ceil(left)));
  if (left <= 0) dayClosed();
}

// The day is over, said by the countdown or pushed by the server: stop the game here, then
// show how it ended once the server has closed it (its push, or asked a few times).
let closing = null;
function dayClosed() {
  dayEndsAt = null;
  $("day-left").textContent = "0:00";
  $("start").hidden = true;
  game.timeIsUp();
  if (!closing) closing = showTheDaysEnd();
}

async function showTheDaysEnd() {
  const hadGame = S.attempt && !S.attempt.over;
  if (hadGame) say("The day is over: your game ends where it stands.");
  // Asked again and again, less often each time, until the server has closed it (its push,
  // or the play socket's answer, may say it first).
  for (let wait = 500; hadGame && !S.attempt.over && wait <= 16000; wait *= 2) {
    await game.reloadAttempt();
    for (let waited = 0; !S.attempt.over && waited < wait; waited += 250) await sleep(250);
  }
  game.render(); // the result, when there is one, comes into view first
  $("replays-link").href = `/challenges/${challengeId}/replays/`;
  $("replays-link").hidden = false;
  const score = S.attempt && S.attempt.over ? ` Score ${S.attempt.scoreTotal}.` : "";
  say(hadGame ? `The day is over: your game ended where it stood.${score} Every game and the solution are public now.` : "The day is over: every game and the solution are public now.");
}

// --- start-up -----------------------------------------------------------------------------

function showTitle(variant, date) {
  const name = VARIANT_NAMES[variant] || variant;
  $("game-title").textContent = `${name} · ${date}`;
  document.title = `${name} ${date} · Astrocyte Daily`;
}

function showSignIn() {
  const link = $("signin");
  link.href = `/login/?next=${encodeURIComponent(window.location.pathname)}`;
  link.hidden = false;
}

// The board is drawn and the clock runs: the page is ready (tests and the bench wait for it).
function ready() {
  game.render();
  window.setInterval(game.tickClock, 250);
  game.tickClock();
  root.dataset.ready = "true";
  performance.mark("astrocyte-ready");
}

async function loadPractice() {
  ({ user: S.user } = await me());
  const wanted = Number(new URLSearchParams(window.location.search).get("attempt"));
  if (!S.user) {
    showSignIn();
    $("practice-setup").hidden = true;
    say("Sign in to practise.");
  } else if (wanted) {
    S.attempt = { id: wanted };
    await game.reloadAttempt();
    if (S.attempt.state) {
      $("practice-setup").hidden = true;
      showTitle(S.attempt.variant, "practice");
      say(S.attempt.over ? "This practice game is over." : "Welcome back: the game goes on where you left it.");
    } else {
      S.attempt = null;
      $("start").hidden = false;
    }
  } else {
    $("start").hidden = false;
    say("Choose a variant and press Start: a verified deal, unranked, with hints.");
  }
  ready();
}

// The challenge and the signed-in user (S.challenge, S.user), retried while the server
// cannot be reached; false after saying why when the server refuses it.
async function loadChallenge() {
  let challengeAnswer;
  try {
    [challengeAnswer, { user: S.user }] = await Promise.all([api("GET", `challenges/${challengeId}/`), me()]);
  } catch {
    game.showBanner("No connection to the server: retrying…");
    await sleep(2000);
    return loadChallenge();
  }
  game.hideBanner();
  if (!challengeAnswer.ok) {
    say(errorMessage(challengeAnswer), "error");
    return false;
  }
  S.challenge = challengeAnswer.data;
  return true;
}

async function loadDaily() {
  if (!(await loadChallenge())) return;
  const c = S.challenge;
  showTitle(c.variant, c.date);
  if (c.my_attempt) {
    S.attempt = { id: c.my_attempt.id };
    await game.reloadAttempt();
    say(S.attempt.over ? "This game is over." : "Welcome back: the game goes on where you left it.");
  } else if (!S.user) {
    showSignIn();
    say("Study the cards. Sign in to play.");
  } else if (c.open) {
    $("start").hidden = false;
    say("Study the cards; the clock starts when you press Start.");
  }
  if (c.open) {
    startDayCountdown(c.seconds_left);
    window.setInterval(tickDayCountdown, 250);
  } else if (!c.my_attempt && S.user) {
    say("This day is closed.");
    $("replays-link").href = `/challenges/${challengeId}/replays/`;
    $("replays-link").hidden = false;
  }
  startLive(await offerLeagues());
  ready();
}

// The archive: a past day's deal (its day over: the server refuses any other), played again
// as practice; that day's board (as it stands) beside it.
async function loadArchive() {
  if (!(await loadChallenge())) return;
  const c = S.challenge;
  showTitle(c.variant, `${c.date} (archive)`);
  loadDayBoard();
  const link = $("replays-link");
  link.href = c.open ? `/play/${challengeId}/` : `/challenges/${challengeId}/replays/`;
  link.textContent = c.open ? "Play today's daily" : "Replays and the solution of this day";
  link.hidden = false;
  const wanted = Number(new URLSearchParams(window.location.search).get("attempt"));
  if (c.open) {
    say("This day is not over yet: it is played as the daily until midnight UTC.", "error");
  } else if (!S.user) {
    showSignIn();
    say("Study the cards. Sign in to play this day's deal again.");
  } else if (wanted) {
    S.attempt = { id: wanted };
    await game.reloadAttempt();
    if (S.attempt.state && S.attempt.challenge_id === challengeId) {
      say(S.attempt.over ? "This game is over." : "Welcome back: the game goes on where you left it.");
    } else {
      S.attempt = null;
      $("start").hidden = false;
    }
  } else {
    $("start").hidden = false;
    say(`Play the ${c.date} deal again as practice: unranked, never on that day's board. The clock starts when you press Start.`);
  }
  ready();
}

async function loadDayBoard() {
  try {
    const answer = await api("GET", `leaderboards/challenges/${challengeId}/?limit=20`);
    if (!answer.ok) return;
    renderBoardRows($, answer.data.top, S.user, "Nobody finished that day.");
    $("board-count").textContent = `${answer.data.counts.finished} finished that day.`;
  } catch {
    $("board-count").textContent = "The day's board could not be loaded.";
  }
}

// A hook for tests and tools: the page's own client code, nothing more.
window.astrocyte = {
  send: game.send,
  state: () => ({ attempt: S.attempt, selection: S.selection, busy: S.busy, lastUpdate: S.lastUpdate, hint: S.hint }),
};

if (practice) loadPractice();
else if (archive) loadArchive();
else loadDaily();
