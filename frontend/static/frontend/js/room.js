// A race room: the lobby (seats, ready marks, start), the race (your board, as on the play
// page, and every racer's progress live: counts only) and the results (order of finish,
// score parts, then the deal's solution and every racer's replay). The room comes from
// rooms/<code>/ and ws/rooms/<code>/; the race is played through the attempts API, with
// the play page's game (play/game.js). The start signal and the time limit are the
// server's clock: the page measures its offset from `server_now`.
import { api, el, errorMessage, formatSeconds, me, progressText, VARIANT_NAMES } from "./api.js";
import { renderBoard } from "./board.js";
import { createGame, sleep } from "./play/game.js";
import { attachBoardInput, attachShortcutKeys } from "./play/input.js";
import { attachResign } from "./play/resign.js";

const root = document.getElementById("room");
const $ = (id) => document.getElementById(id);
const code = root.dataset.code;
const game = createGame({ $, practice: false, challengeId: null });
const { S, say } = game;

attachBoardInput(game);
attachShortcutKeys(game, toggleHelp);

const R = { room: null, mySeat: null, offsetMs: 0, raceLoaded: false, resultsShown: false };

function toggleHelp(force) {
  const help = $("help");
  help.hidden = force === undefined ? !help.hidden : !force;
  $("help-button").setAttribute("aria-expanded", String(!help.hidden));
}

const serverNow = () => Date.now() + R.offsetMs;

// --- the room as the server says --------------------------------------------------------

function adoptRoom(room, detail = false) {
  R.offsetMs = Date.parse(room.server_now) - Date.now();
  if (detail) R.mySeat = room.my_seat;
  const before = R.room;
  R.room = room;
  // Started (or over) since we last looked: our seat's attempt id is in the detail.
  if (!detail && before && before.status !== room.status) refresh();
  renderRoom();
}

async function refresh() {
  try {
    const answer = await api("GET", `rooms/${code}/`);
    if (answer.ok) adoptRoom(answer.data, true);
    else say(errorMessage(answer), "error");
  } catch {
    game.showBanner("No connection to the server: retrying…");
    await sleep(2000);
    return refresh();
  }
  game.hideBanner();
}

function progressCells(p) {
  if (!p) return ["–", "–", "–", "–", "waiting"];
  const state = p.won ? "won" : p.resigned ? "resigned" : p.finished ? "finished" : "racing";
  return [p.cards_home, p.runs_completed, p.deals_left, p.action_count, state];
}

function renderRacers() {
  const body = $("racers").querySelector("tbody");
  body.replaceChildren();
  for (const racer of R.room.racers) {
    const cells = progressCells(racer.progress);
    body.append(el("tr", { "data-racer": racer.username, "data-state": cells[4] },
      el("td", { text: racer.host ? `${racer.username} (host)` : racer.username }),
      el("td", { text: racer.ready ? "ready" : "–" }),
      ...cells.map((cell) => el("td", { text: String(cell) }))));
  }
}

function renderRoom() {
  const room = R.room;
  const name = VARIANT_NAMES[room.variant] || room.variant;
  $("game-title").textContent = `Race room · ${name}`;
  $("room-info").textContent =
    `${room.racers.length} of ${room.seats} seats · ${room.time_limit_minutes} min · ${room.public ? "public" : "by link"} · ${room.status}`;
  root.dataset.status = room.status;
  renderRacers();
  const seated = Boolean(R.mySeat);
  const lobby = room.status === "lobby";
  const isHost = S.user && room.host === S.user.username;
  $("join").hidden = !(S.user && lobby && !seated && room.racers.length < room.seats);
  $("ready").hidden = !(lobby && seated && !R.mySeat.ready);
  $("start").hidden = !(lobby && isHost && room.racers.length >= 2);
  $("leave").hidden = !(lobby && seated);
  if (lobby) {
    if (!S.user) say("Sign in to take a seat.");
    else if (!seated) say("Take a seat to race.");
    else say(R.mySeat.ready ? "Ready: the race starts when every seat is ready, or when the host starts it." : "Press Ready when you are.");
  }
  if (room.status === "closed") say("This room is closed.");
  if (room.status === "racing" || room.status === "finished") followRace();
  if (room.status === "finished") showResults();
}

// --- the race ---------------------------------------------------------------------------

let countdownTimer = null;
function followRace() {
  const startsAt = Date.parse(R.room.starts_at);
  if (serverNow() < startsAt) {
    if (!countdownTimer) countdownTimer = window.setInterval(tickCountdown, 100);
    tickCountdown();
    return;
  }
  loadRace();
}

function tickCountdown() {
  const left = Date.parse(R.room.starts_at) - serverNow();
  const countdown = $("countdown");
  if (left > 0) {
    countdown.hidden = false;
    countdown.textContent = `The race starts in ${Math.ceil(left / 1000)}…`;
    return;
  }
  window.clearInterval(countdownTimer);
  countdownTimer = null;
  countdown.textContent = "Go!";
  window.setTimeout(() => { countdown.hidden = true; }, 1000);
  loadRace();
}

async function loadRace() {
  if (R.raceLoaded || !R.mySeat || !R.mySeat.attempt_id) return;
  R.raceLoaded = true;
  S.attempt = { id: R.mySeat.attempt_id };
  await game.reloadAttempt();
  if (!S.attempt.state) {
    R.raceLoaded = false;
    return;
  }
  say(S.attempt.over ? "Your game is over: the others may still be racing." : "Go! The clock is running.");
  game.render();
  root.dataset.racing = "true";
  if (R.room.ends_at && !timeLeftTimer) {
    timeLeftTimer = window.setInterval(tickTimeLeft, 250);
    tickTimeLeft();
  }
}

// The race's time limit, on the server's clock: at zero the game stops where it stands, and
// the room is asked again until the server has ended the race (its push may say it first).
let timeLeftTimer = null;
async function tickTimeLeft() {
  const left = Date.parse(R.room.ends_at) - serverNow();
  $("time-left-box").hidden = false;
  $("time-left").textContent = formatSeconds(Math.max(0, Math.ceil(left / 1000)));
  if (left > 0 || R.room.status === "finished") {
    if (R.room.status === "finished") window.clearInterval(timeLeftTimer);
    return;
  }
  window.clearInterval(timeLeftTimer);
  const playingBefore = game.playing();
  game.timeIsUp();
  if (playingBefore) say("Time is up: your game ends where it stands.");
  for (let wait = 1000; R.room.status !== "finished" && wait <= 32000; wait *= 2) {
    await sleep(wait);
    await refresh();
  }
}

$("finish").addEventListener("click", () => game.finish());

attachResign($("resign"), game, () => game.reloadAttempt());

// --- the results and replays -------------------------------------------------------------

async function showResults() {
  if (R.resultsShown || !R.room.results) return;
  R.resultsShown = true;
  if (S.attempt && S.attempt.id) await game.reloadAttempt(); // its cards are public now
  game.render();
  const body = $("results-table").querySelector("tbody");
  body.replaceChildren();
  for (const row of R.room.results) {
    const parts = row.score_parts;
    body.append(el("tr", { "data-racer": row.username },
      el("td", { text: String(row.place) }),
      el("td", { text: row.username }),
      el("td", { text: row.won ? "won" : `${row.end_reason || "not won"}: ${progressText(row, row.face_down_dealt)}` }),
      el("td", { text: String(row.score) }),
      el("td", { text: `${parts.base} − ${parts.actions} − ${parts.time_penalty} + ${parts.foundation_bonus} + ${parts.win_bonus}` }),
      el("td", { text: formatSeconds(row.elapsed_seconds || 0) }),
      el("td", { text: String(row.action_count) }),
      el("td", {}, el("button", { type: "button", class: "replay-button", text: "Replay", onclick: () => openViewer(`racers/${row.username}/replay/`, `${row.username}'s game`) }))));
  }
  body.append(el("tr", {}, el("td", { colspan: "7", text: "The deal's proven solution" }),
    el("td", {}, el("button", { type: "button", id: "solution-button", text: "Solution", onclick: () => openViewer("solution/", "The solution") }))));
  $("results").hidden = false;
  say("The race is over: the deal, the solution and every racer's game are public.");
  root.dataset.finished = "true";
}

const V = { path: null, step: 0, steps: 0 };
async function openViewer(path, title) {
  V.path = path;
  $("viewer-title").textContent = title;
  $("viewer").hidden = false;
  await showStep(0);
}

async function showStep(step) {
  const answer = await api("GET", `rooms/${code}/${V.path}?step=${step}`);
  if (!answer.ok) {
    say(errorMessage(answer), "error");
    return;
  }
  const data = answer.data;
  V.step = data.step;
  V.steps = data.steps;
  $("viewer-step").textContent = `${data.step} / ${data.steps}${data.action ? ` · ${data.action}` : ""}`;
  renderBoard($("viewer-board"), data.state, { interactive: false, dealsLeft: data.deals_left });
}

$("viewer-back").addEventListener("click", () => V.step > 0 && showStep(V.step - 1));
$("viewer-next").addEventListener("click", () => V.step < V.steps && showStep(V.step + 1));

// --- lobby buttons ------------------------------------------------------------------------

function roomButton(id, path) {
  $(id).addEventListener("click", async () => {
    $(id).disabled = true;
    try {
      const answer = await api("POST", `rooms/${code}/${path}/`);
      if (answer.ok) adoptRoom(answer.data, true);
      else say(errorMessage(answer), "error");
    } catch {
      say("No connection: try again.", "error");
    } finally {
      $(id).disabled = false;
    }
  });
}
roomButton("join", "join");
roomButton("ready", "ready");
roomButton("start", "start");
roomButton("leave", "leave");
$("undo").addEventListener("click", game.undo);
$("deal").addEventListener("click", game.deal);
$("help-button").addEventListener("click", () => toggleHelp());

// --- live ------------------------------------------------------------------------------------

function connect(attempt = 0) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${window.location.host}/ws/rooms/${code}/`);
  $("live-state").textContent = "Live: connecting…";
  socket.addEventListener("open", () => { $("live-state").textContent = "Live"; attempt = 0; });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "room") adoptRoom(message);
    else if (message.type === "progress" && R.room) {
      const racer = R.room.racers.find((r) => r.username === message.username);
      if (racer) racer.progress = message.progress;
      renderRacers();
    }
  });
  socket.addEventListener("close", (event) => {
    $("live-state").textContent = "Live: reconnecting…";
    if (event.code === 4404 || event.code === 4400) return;
    window.setTimeout(() => connect(attempt + 1), Math.min(10000, 500 * 2 ** attempt));
  });
  window.setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('{"type":"ping"}'), 20000);
}

async function load() {
  ({ user: S.user } = await me());
  if (!S.user) {
    const link = $("signin");
    link.href = `/login/?next=${encodeURIComponent(window.location.pathname)}`;
    link.hidden = false;
  }
  await refresh();
  connect();
  window.setInterval(game.tickClock, 250);
  root.dataset.ready = "true";
}

window.astrocyte = {
  send: game.send,
  state: () => ({ attempt: S.attempt, room: R.room, busy: S.busy }),
};

load();
