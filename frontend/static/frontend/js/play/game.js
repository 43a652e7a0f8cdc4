// The game on the play page: what the page knows (only what the server sent), how it is
// drawn, and what a player's pick, place, deal or undo does. One post at a time; every
// action goes through send(), which the board input, the buttons and the test hook share.
import { api, errorMessage, formatSeconds } from "../api.js";
import { cardName, pileName, renderBoard } from "../board.js";
import { PlayingSet } from "../live.js";
import { postBatch, fetchAttempt, untilAnswered } from "./actions.js";
import { actionText, announcement, refusalText } from "./announce.js";
import { afterAnswer, clockSeconds, flashOf, fromDetail, safeToFinish } from "./attempt.js";
import { defaultFocus } from "./focus.js";
import { describeCards, destinations, moveText, movesFrom, pick, pileCards, runLength } from "./moves.js";
import { outcomeText, renderResult } from "./panels.js";
import { animate, celebrate, measure } from "./motion.js";
import { PlaySocket, playSocketUrl } from "./socket.js";
import { Sounds, soundOf } from "./sound.js";

export const sleep = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

// $: document.getElementById; practice: the page's mode; challengeId: the daily's id (null
// in practice).
export function createGame({ $, practice, challengeId }) {
  const board = $("board");
  const statusLine = $("status");
  const banner = $("banner");
  const announcer = $("announcer");

  const S = {
    challenge: null,
    attempt: null, // the attempt as the server last described it (attempt.js)
    user: null,
    selection: null, // {pile, n}
    focusKey: null,
    busy: false, // a post is on its way
    scoreParts: null,
    clockBase: 0, // server elapsed seconds at clockAt
    clockAt: 0,
    rank: null,
    boardSize: null, // the day's board's size, when the rank was read ("rank N of M")
    wouldRank: null, // an archive game's rank that day (GET leaderboards/attempts/<id>/would-rank/)
    stats: null, // after a ranked daily: the player's record (GET leaderboards/players/<me>/)
    rating: null, // after a ranked daily: the rating and this day's change (GET leaderboards/ratings/attempts/<id>/)
    flash: null,
    hint: null, // {src, dst, n, action}: the server's suggestion, drawn highlighted
    playing: new PlayingSet(),
    lastUpdate: 0,
    socket: null, // the play socket of the attempt being played (socket.js)
    timeUp: false, // a daily's day, or a race's time limit, has ended (its countdown ran out, or the server said so)
    frozenClock: null, // the clock's seconds when the day ended, until the server's own
  };

  const sounds = new Sounds();
  const soundSwitch = $("sound");
  if (soundSwitch) {
    const show = () => { soundSwitch.textContent = `Sound: ${sounds.on ? "on" : "off"}`; };
    show();
    soundSwitch.addEventListener("click", () => {
      sounds.on = !sounds.on;
      show();
    });
  }

  const view = () => (S.attempt ? S.attempt.state : S.challenge && S.challenge.state);
  // A daily's game is played until its day ends, a race's until its time limit, whatever the
  // server has yet to say of it.
  const playing = () => Boolean(S.attempt && !S.attempt.over && !(S.timeUp && (S.attempt.kind === "ranked" || S.attempt.race)));
  const legal = () => (playing() ? S.attempt.legal_actions : []);

  // A refused move: the board gives a short shake (none under prefers-reduced-motion: the
  // stylesheet turns the animation off), and the cards stay where they were.
  function shake() {
    board.classList.remove("refused");
    void board.offsetWidth; // restart the animation on a second refusal in a row
    board.classList.add("refused");
    board.dataset.refusals = String(Number(board.dataset.refusals || 0) + 1);
    window.setTimeout(() => board.classList.remove("refused"), 400);
  }

  function say(text, kind = "info") {
    statusLine.textContent = text;
    statusLine.dataset.kind = kind;
  }

  function showBanner(text) {
    banner.textContent = text;
    banner.hidden = false;
  }

  const hideBanner = () => { banner.hidden = true; };

  // The live region (role="log"): one line per accepted batch, the last few kept.
  function announce(text) {
    announcer.append(Object.assign(document.createElement("p"), { textContent: text }));
    while (announcer.childElementCount > 5) announcer.firstElementChild.remove();
  }

  // --- drawing -------------------------------------------------------------------------

  function render() {
    const v = view();
    if (!v) return;
    const hadFocus = board.contains(document.activeElement);
    if (!S.focusKey) S.focusKey = defaultFocus(v);
    const a = S.attempt;
    // before Start there is no attempt: the stock's packets are the deals left
    const dealsLeft = a ? a.deals_left : v.stock.length / v.tableau.length;
    renderBoard(board, v, {
      selection: S.selection,
      targets: destinations(legal(), S.selection),
      focusKey: S.focusKey,
      interactive: playing(),
      dealsLeft,
      flash: S.flash,
      hint: S.hint,
    });
    S.flash = null;
    if (!board.querySelector('[tabindex="0"]')) {
      S.focusKey = defaultFocus(v);
      const first = board.querySelector(`[data-focus="${S.focusKey}"]`);
      if (first) first.tabIndex = 0;
    }
    if (hadFocus) focusCurrent();
    $("actions").textContent = a ? String(a.action_count) : "0";
    $("score").textContent = a ? String(a.scoreTotal) : "–";
    const canPlay = playing() && !S.busy;
    $("undo").disabled = !canPlay || !legal().includes("undo");
    $("deal").disabled = !canPlay || !legal().includes("deal");
    $("deal").textContent = `Deal (${dealsLeft} left)`;
    $("resign").disabled = !playing();
    // Every card face up and the stock dealt: the server can finish the game (autocomplete).
    $("finish").hidden = !(playing() && safeToFinish(v));
    $("finish").disabled = !canPlay;
    if (practice) $("hint").disabled = !canPlay;
    board.setAttribute("aria-busy", S.busy ? "true" : "false");
    S.lastUpdate = performance.now();
    tickClock(); // an ended game's clock is its own at once: the time the score counted
    if (a && a.over) showResult();
  }

  // While a batch is on its way: no button that sends another, the board marked busy.
  function showBusy() {
    for (const id of ["undo", "deal", "hint"]) {
      const button = $(id);
      if (button) button.disabled = true;
    }
    board.setAttribute("aria-busy", "true");
  }

  function focusCurrent() {
    const node = board.querySelector(`[data-focus="${S.focusKey}"]`);
    if (node) node.focus({ preventScroll: false });
  }

  // Move the roving focus to a key (focus.js): the one tab stop of the board.
  function setFocus(key) {
    S.focusKey = key;
    for (const node of board.querySelectorAll("[data-focus]")) {
      node.tabIndex = node.dataset.focus === key ? 0 : -1;
    }
    focusCurrent();
  }

  function tickClock() {
    const running = S.frozenClock === null || (S.attempt && S.attempt.over);
    const seconds = running ? clockSeconds(S.attempt, S.clockBase, S.clockAt, performance.now()) : S.frozenClock;
    $("clock").textContent = formatSeconds(seconds);
  }

  // The day (or the race's time) is over: the clock stops and no more actions are offered;
  // the server's close (pushed, or asked for) then ends the game where it stood.
  function timeIsUp() {
    if (S.timeUp) return;
    S.timeUp = true;
    if (S.attempt && !S.attempt.over) S.frozenClock = clockSeconds(S.attempt, S.clockBase, S.clockAt, performance.now());
    followSocket();
    render();
  }

  // --- what the server says --------------------------------------------------------------

  // After the server has described the attempt anew: its clock from the server's seconds,
  // and no pick or hint left over from the position before.
  function takeServerClock(elapsedSeconds) {
    S.clockBase = elapsedSeconds;
    S.clockAt = performance.now();
    S.selection = null;
    S.hint = null;
  }

  function adoptAttempt(detail) {
    S.attempt = fromDetail(detail);
    if (detail.score_parts) S.scoreParts = detail.score_parts;
    takeServerClock(detail.elapsed_seconds);
    followSocket();
  }

  // The play socket is open while the attempt is being played, and closed once it is over.
  function followSocket() {
    const wanted = playing() ? playSocketUrl(window.location, S.attempt.id) : null;
    if (S.socket && S.socket.url === wanted) return;
    if (S.socket) S.socket.close();
    S.socket = wanted ? new PlaySocket(wanted) : null;
  }

  function applyAnswer(data) {
    S.flash = flashOf(S.attempt, data);
    S.attempt = afterAnswer(S.attempt, data);
    S.scoreParts = data.score;
    takeServerClock(data.elapsed_seconds);
  }

  // Post a batch at the current offset (actions.js retries a lost connection with the very
  // same batch at the very same offset, and waits out a 429); a 409 reloads the attempt; a
  // refusal is explained in the server's own words. Resolves to whether it was applied.
  async function send(actions) {
    if (!playing()) return false;
    if (S.busy) {
      say("Wait a moment: the last action is still on its way to the server.");
      return false;
    }
    S.busy = true;
    let accepted = false;
    let motion = null;
    try {
      // The batch leaves first (postBatch sends before its first await); only then is the
      // page marked busy, without redrawing the board: the answer's render follows.
      const pending = postBatch({
        api,
        sleep,
        attemptId: S.attempt.id,
        offset: S.attempt.offset,
        actions,
        socket: S.socket,
        onLost: () => showBanner(`Connection lost: retrying (${actions.join(" ")})…`),
        onThrottled: (seconds) => showBanner(`Too many actions at once: waiting ${Math.ceil(seconds)} s…`),
      });
      showBusy();
      const answer = await pending;
      hideBanner();
      if (answer.ok) {
        const before = S.attempt;
        motion = measure(board, actions); // where the moved cards are, before the new board
        applyAnswer(answer.data);
        sounds.play(soundOf(answer.data, { dealt: S.flash.dealt, home: S.flash.home.size }));
        announce(announcement(before.state, actions, answer.data, before.runs_completed));
        accepted = true;
        const words = actions.length === 1 ? actionText(before.state, actions[0]) : `Played ${actions.length} actions.`;
        say(S.flash.home.size ? `A run went home: ${answer.data.runs_completed} of 8.` : words);
        if (answer.data.over) await reloadAttempt();
      } else if (answer.status === 409) {
        await reloadAttempt();
        say(`${errorMessage(answer)} The board was reloaded from the server.`, "error");
      } else {
        S.selection = null;
        say(refusalText(errorMessage(answer)), "error");
        shake();
        sounds.play(soundOf(null));
      }
    } finally {
      S.busy = false;
      render();
      animate(board, motion);
      if (accepted && S.attempt.won) celebrate(board);
    }
    return accepted;
  }

  // The attempt as the server has it (after a 409, at the end, on a return to the page).
  async function reloadAttempt() {
    const answer = await fetchAttempt({
      api,
      sleep,
      attemptId: S.attempt.id,
      onLost: () => showBanner("Connection lost: reloading the attempt…"),
    });
    if (!answer.ok) {
      say(errorMessage(answer), "error");
      return;
    }
    adoptAttempt(answer.data);
    hideBanner();
  }

  // The rest of the game played by the server (POST autocomplete/), as ordinary actions.
  async function finish() {
    if (!playing() || S.busy) return;
    S.busy = true;
    showBusy();
    say("Finishing the game…");
    try {
      const answer = await untilAnswered(() => api("POST", `attempts/${S.attempt.id}/autocomplete/`), {
        sleep,
        onLost: () => showBanner("Connection lost: retrying…"),
      });
      hideBanner();
      if (answer.ok) {
        applyAnswer(answer.data);
        say(`Finished: ${answer.data.action_count} actions in all.`);
        if (answer.data.over) await reloadAttempt();
      } else {
        say(errorMessage(answer), "error");
      }
    } finally {
      S.busy = false;
      render();
      if (S.attempt && S.attempt.won) celebrate(board);
    }
  }

  // --- a player's moves: pick up, place, put back, deal, undo -----------------------------

  function putBack(text = "Put back.") {
    S.selection = null;
    say(text);
    render();
  }

  function select(pile, index) {
    const v = view();
    const picked = pick(v, pile, index);
    if (picked.refused === "empty") {
      say(`${pileName(pile)} is empty: pick a card first.`);
      return;
    }
    if (picked.refused) {
      say("That card is face down.");
      return;
    }
    S.selection = { pile, n: picked.n };
    const places = [...destinations(legal(), S.selection)];
    const what = describeCards(v, pile, picked.n);
    say(places.length
      ? `Picked up ${what}: it may go to ${places.map(pileName).join(", ")}.`
      : `Picked up ${what}: the server lists no place for it.`);
    render();
  }

  // Post the selection's move to dst, listed or not (the server explains a refusal).
  function place(dst) {
    const { pile, n } = S.selection;
    if (dst === pile) {
      putBack();
      return Promise.resolve(false);
    }
    return send([moveText(pile, n, dst)]);
  }

  // A click, a tap or Enter on a pile (index: the card in a column, or null).
  function activate(pile, index) {
    if (!S.attempt) {
      say(S.user ? "Study the cards, then press Start." : "Sign in to play; you may study the cards meanwhile.");
      return;
    }
    if (!playing()) return;
    if (pile === "stock") {
      deal();
      return;
    }
    const pickedAgain = S.selection && S.selection.pile === pile && pile[0] === "t" && index !== null && index !== undefined;
    if (pickedAgain && runLength(view(), pile, index) !== S.selection.n) select(pile, index);
    else if (S.selection) place(pile);
    else select(pile, index);
  }

  // A double click: the first listed action that moves these cards.
  function sendToFirstLegal(pile, index) {
    if (!playing()) return;
    const v = view();
    const cards = pileCards(v, pile);
    const n = runLength(v, pile, index);
    const moves = movesFrom(legal(), pile, n);
    S.selection = null;
    if (!moves.length) {
      const what = cards.length ? (n > 1 ? `${cardName(cards[index])} and the cards on it` : cardName(cards[cards.length - 1])) : pileName(pile);
      say(`No legal move for ${what}: the server lists none.`, "error");
      render();
      return;
    }
    send([moves[0]]);
  }

  // Posted even when not listed: the server says why (a column is empty, or the stock is).
  function deal() {
    if (playing()) send(["deal"]);
  }

  function undo() {
    if (playing()) send(["undo"]);
  }

  // --- the result, with the rank once the board has it ------------------------------------

  let rankAsked = false;
  function showResult() {
    const firstShown = $("result").hidden;
    renderResult($, { attempt: S.attempt, scoreParts: S.scoreParts, rank: S.rank, wouldRank: S.wouldRank, stats: S.stats, rating: S.rating, boardSize: S.boardSize });
    if (firstShown) say(`${outcomeText(S.attempt)} Score ${S.attempt.scoreTotal}.`);
    if (rankAsked) return;
    if (S.attempt.kind === "ranked") {
      rankAsked = true;
      fetchUntil(`leaderboards/challenges/${challengeId}/`, (data) => {
        if (!data.me) return false;
        S.rank = data.me.rank;
        S.boardSize = data.counts.finished;
        return true;
      });
      // The player's record with this game in it: played, won, the streak.
      if (S.user) {
        const variant = encodeURIComponent(S.attempt.variant);
        fetchUntil(`leaderboards/players/${encodeURIComponent(S.user.username)}/?variant=${variant}`, (data) => {
          if (!data.stats || data.stats.played < 1) return false;
          S.stats = data;
          return true;
        });
        // The rating in this variant, and what this day did to it once the day is rated.
        fetchUntil(`leaderboards/ratings/attempts/${S.attempt.id}/`, (data) => {
          S.rating = data;
          return true;
        });
      }
    } else if (S.attempt.challenge_id) {
      // A past daily played again (the archive): where it would have ranked that day.
      rankAsked = true;
      fetchUntil(`leaderboards/attempts/${S.attempt.id}/would-rank/`, (data) => {
        S.wouldRank = data;
        return true;
      });
    }
  }

  // GET path until take(data) says it had what it wanted (a few tries, waiting longer each
  // time: the board may not have the finished attempt yet), then show the result again.
  async function fetchUntil(path, take) {
    for (let i = 0; i < 5; i += 1) {
      try {
        const answer = await api("GET", path);
        if (answer.ok && take(answer.data)) {
          showResult();
          return;
        }
      } catch {
        /* retried below */
      }
      await sleep(500 * 2 ** i);
    }
  }

  return {
    S, board, view, playing, say, showBanner, hideBanner, render, focusCurrent, setFocus, tickClock, timeIsUp,
    adoptAttempt, send, reloadAttempt, putBack, select, place, activate, sendToFirstLegal, deal, undo, showResult,
    finish,
  };
}
