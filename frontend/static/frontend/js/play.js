// The play page: the board from the server's state, moves as the server lists them, the
// clock and score from the server, the live leaderboard beside it. No rules of its own.
import { api, el, errorCode, errorMessage, formatSeconds, me, NetworkError, VARIANT_NAMES } from "./api.js";
import { cardName, pileName, renderBoard, topRowPiles } from "./board.js";
import { connectLive, PlayingSet } from "./live.js";

const root = document.getElementById("play");
// "daily" (a challenge, ranked) or "practice" (an unranked attempt on a practice deal, hints).
const practice = root.dataset.mode === "practice";
const challengeId = practice ? null : Number(root.dataset.challenge);
const $ = (id) => document.getElementById(id);
const board = $("board");
const statusLine = $("status");
const banner = $("banner");

const S = {
  challenge: null,
  attempt: null, // the attempt as the server last described it
  user: null,
  selection: null, // {pile, n}
  focusKey: null,
  busy: false,
  scoreParts: null,
  clockBase: 0, // server elapsed seconds at clockAt
  clockAt: 0,
  rank: null,
  flash: null,
  drag: null,
  suppressClick: false,
  playing: new PlayingSet(),
  lastUpdate: 0,
  hint: null, // {src, dst, n, action}: the server's suggestion, drawn highlighted
};

const ACTION_RE = /^([tcf]\d+)-([tcf]\d+)(?::(\d+))?$/;

function parseAction(action) {
  const m = ACTION_RE.exec(action);
  return m ? { src: m[1], dst: m[2], n: m[3] ? Number(m[3]) : 1 } : null;
}

function moveText(src, n, dst) {
  return `${src}-${dst}${n >= 2 ? `:${n}` : ""}`;
}

const view = () => (S.attempt ? S.attempt.state : S.challenge && S.challenge.state);
const playing = () => Boolean(S.attempt && !S.attempt.over);
const legal = () => (playing() ? S.attempt.legal_actions : []);

function legalMovesFrom(src, n) {
  return legal().filter((action) => {
    const move = parseAction(action);
    return move && move.src === src && move.n === n;
  });
}

function say(text, kind = "info") {
  statusLine.textContent = text;
  statusLine.dataset.kind = kind;
}

function describeSelection(sel) {
  const v = view();
  const cards = pileCards(v, sel.pile);
  const first = cards[cards.length - sel.n];
  return sel.n > 1 ? `${cardName(first)} and the ${sel.n - 1} cards on it` : cardName(first);
}

function pileCards(v, pile) {
  const i = Number(pile.slice(1)) - 1;
  if (pile[0] === "t") return v.tableau[i];
  if (pile[0] === "c") return v.cells[i] ? [v.cells[i]] : [];
  if (pile[0] === "f") return v.foundations[i];
  return [];
}

// --- drawing -------------------------------------------------------------------------

function targets() {
  if (!S.selection) return new Set();
  return new Set(legalMovesFrom(S.selection.pile, S.selection.n).map((a) => parseAction(a).dst));
}

function render() {
  const v = view();
  if (!v) return;
  const hadFocus = board.contains(document.activeElement);
  if (!S.focusKey) S.focusKey = defaultFocus(v);
  renderBoard(board, v, {
    selection: S.selection,
    targets: targets(),
    focusKey: S.focusKey,
    interactive: playing(),
    dealsLeft: S.attempt ? S.attempt.deals_left : v.stock.length / v.tableau.length,
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
  const a = S.attempt;
  $("actions").textContent = a ? String(a.action_count) : "0";
  $("score").textContent = a ? String(a.scoreTotal) : "–";
  const canPlay = playing() && !S.busy;
  $("undo").disabled = !canPlay || !legal().includes("undo");
  $("deal").disabled = !canPlay || !legal().includes("deal");
  $("deal").textContent = `Deal (${a ? a.deals_left : 0} left)`;
  $("resign").disabled = !playing();
  if (practice) $("hint").disabled = !canPlay;
  board.setAttribute("aria-busy", S.busy ? "true" : "false");
  S.lastUpdate = performance.now();
  if (a && a.over) showResult();
}

function defaultFocus(v) {
  for (let i = 0; i < v.tableau.length; i += 1) {
    const cards = v.tableau[i];
    return cards.length ? `t${i + 1}:${cards.length - 1}` : `t${i + 1}:`;
  }
  return "stock:";
}

function focusCurrent() {
  const node = board.querySelector(`[data-focus="${S.focusKey}"]`);
  if (node) node.focus({ preventScroll: false });
}

function tickClock() {
  const a = S.attempt;
  let seconds = 0;
  if (a && a.over) seconds = a.elapsed_seconds;
  else if (a) seconds = S.clockBase + (performance.now() - S.clockAt) / 1000;
  $("clock").textContent = formatSeconds(seconds);
}

// --- talking to the server ------------------------------------------------------------

function adoptAttempt(detail) {
  S.attempt = {
    ...detail,
    scoreTotal: typeof detail.score === "object" && detail.score ? detail.score.total : detail.score,
  };
  if (detail.score_parts) S.scoreParts = detail.score_parts;
  S.clockBase = detail.elapsed_seconds;
  S.clockAt = performance.now();
  S.selection = null;
  S.hint = null;
}

function applyAnswer(data) {
  const before = S.attempt;
  const flash = { flip: new Set(), dealt: false, home: new Set() };
  for (const { pile } of data.revealed) flash.flip.add(pile);
  if (data.state.stock.length < before.state.stock.length) flash.dealt = true;
  data.state.foundations.forEach((cards, i) => {
    if (cards.length === 13 && before.state.foundations[i].length !== 13) flash.home.add(`f${i + 1}`);
  });
  if (flash.dealt) flash.flip.clear();
  S.attempt = {
    ...before,
    offset: data.offset,
    action_count: data.action_count,
    state: data.state,
    legal_actions: data.legal_actions,
    won: data.won,
    over: data.over,
    deals_left: data.deals_left,
    runs_completed: data.runs_completed,
    scoreTotal: data.score.total,
  };
  S.scoreParts = data.score;
  S.clockBase = data.elapsed_seconds;
  S.clockAt = performance.now();
  S.flash = flash;
  S.selection = null;
  S.hint = null;
  if (flash.home.size) say(`A run went home: ${data.runs_completed} of 8.`);
}

const sleep = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

function showBanner(text) {
  banner.textContent = text;
  banner.hidden = false;
}

// Post a batch at the current offset. A lost connection retries the very same batch at the
// very same offset (the server answers a retry as the first time), so nothing is lost or
// doubled; a 409 reloads the attempt; a 400 is explained with the server's own words.
async function send(actions) {
  if (!playing()) return false;
  if (S.busy) {
    say("Wait a moment: the last action is still on its way to the server.");
    return false;
  }
  S.busy = true;
  render();
  const attemptId = S.attempt.id;
  const body = { offset: S.attempt.offset, actions };
  let delay = 400;
  let accepted = false;
  try {
    for (;;) {
      let answer;
      try {
        answer = await api("POST", `attempts/${attemptId}/actions/`, body);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        showBanner(`Connection lost: retrying (${actions.join(" ")})…`);
        await sleep(delay);
        delay = Math.min(delay * 2, 8000);
        continue;
      }
      banner.hidden = true;
      if (answer.ok) {
        applyAnswer(answer.data);
        accepted = true;
        if (!S.flash.home.size) say(`Played ${actions.join(" ")}.`);
        if (answer.data.over) await reloadAttempt();
      } else if (answer.status === 429) {
        const wait = Number((answer.data.error.details || {}).wait) || 1;
        showBanner(`Too many actions at once: waiting ${Math.ceil(wait)} s…`);
        await sleep(wait * 1000);
        continue;
      } else if (answer.status === 409) {
        await reloadAttempt();
        say(`${errorMessage(answer)} The board was reloaded from the server.`, "error");
      } else {
        S.selection = null;
        say(`Refused: ${errorMessage(answer)}`, "error");
      }
      break;
    }
  } finally {
    S.busy = false;
    render();
  }
  return accepted;
}

async function reloadAttempt() {
  for (let delay = 400; ; delay = Math.min(delay * 2, 8000)) {
    try {
      const answer = await api("GET", `attempts/${S.attempt.id}/`);
      if (answer.ok) {
        adoptAttempt(answer.data);
        banner.hidden = true;
        return;
      }
      say(errorMessage(answer), "error");
      return;
    } catch {
      showBanner("Connection lost: reloading the attempt…");
      await sleep(delay);
    }
  }
}

// --- moves ------------------------------------------------------------------------------

function select(pile, index) {
  const v = view();
  const cards = pileCards(v, pile);
  if (!cards.length) {
    say(`${pileName(pile)} is empty: pick a card first.`);
    return;
  }
  let n = 1;
  if (pile[0] === "t") {
    if (index === null || index === undefined) index = cards.length - 1;
    if (index < v.face_down[Number(pile.slice(1)) - 1]) {
      say("That card is face down.");
      return;
    }
    n = cards.length - index;
  }
  S.selection = { pile, n };
  const places = [...targets()];
  say(places.length
    ? `Picked up ${describeSelection(S.selection)}: it may go to ${places.map(pileName).join(", ")}.`
    : `Picked up ${describeSelection(S.selection)}: the server lists no place for it.`);
  render();
}

function place(dst) {
  const { pile, n } = S.selection;
  if (dst === pile) {
    S.selection = null;
    say("Put back.");
    render();
    return Promise.resolve(false);
  }
  return send([moveText(pile, n, dst)]);
}

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
  if (S.selection) {
    if (S.selection.pile === pile && pile[0] === "t" && index !== null && index !== undefined) {
      const cards = pileCards(view(), pile);
      if (cards.length - index !== S.selection.n) {
        select(pile, index);
        return;
      }
    }
    place(pile);
    return;
  }
  select(pile, index);
}

function sendToFirstLegal(pile, index) {
  if (!playing()) return;
  const cards = pileCards(view(), pile);
  const n = pile[0] === "t" ? cards.length - index : 1;
  const moves = legalMovesFrom(pile, n);
  S.selection = null;
  if (!moves.length) {
    const what = cards.length ? (n > 1 ? `${cardName(cards[index])} and the cards on it` : cardName(cards[cards.length - 1])) : pileName(pile);
    say(`No legal move for ${what}: the server lists none.`, "error");
    render();
    return;
  }
  send([moves[0]]);
}

function deal() {
  if (!playing()) return;
  if (!legal().includes("deal")) {
    // Not offered: let the server say why (a column is empty, or the stock is).
    send(["deal"]);
    return;
  }
  send(["deal"]);
}

function undo() {
  if (playing()) send(["undo"]);
}

// --- pointer: click, double click, drag and drop (touch too) -----------------------------

function hit(target) {
  const node = target && target.closest && target.closest("[data-pile]");
  if (!node || !board.contains(node)) return null;
  const index = node.dataset.index !== undefined ? Number(node.dataset.index) : null;
  return { pile: node.dataset.pile, index, node };
}

board.addEventListener("click", (event) => {
  if (S.suppressClick) {
    S.suppressClick = false;
    return;
  }
  const h = hit(event.target);
  if (!h) return;
  const focusNode = event.target.closest("[data-focus]");
  if (focusNode) S.focusKey = focusNode.dataset.focus;
  activate(h.pile, h.index);
});

board.addEventListener("dblclick", (event) => {
  const h = hit(event.target);
  if (!h || h.pile === "stock") return;
  event.preventDefault();
  const cards = pileCards(view(), h.pile);
  sendToFirstLegal(h.pile, h.pile[0] === "t" ? h.index ?? cards.length - 1 : 0);
});

board.addEventListener("pointerdown", (event) => {
  if (!playing() || event.button !== 0) return;
  const h = hit(event.target);
  if (!h || h.pile === "stock" || h.index === null) return;
  const v = view();
  const cards = pileCards(v, h.pile);
  if (!cards.length) return;
  if (h.pile[0] === "t" && h.index < v.face_down[Number(h.pile.slice(1)) - 1]) return;
  S.drag = { pile: h.pile, index: h.index, x: event.clientX, y: event.clientY, id: event.pointerId, ghost: null };
});

function startDrag(event) {
  const d = S.drag;
  const v = view();
  const cards = pileCards(v, d.pile);
  const n = d.pile[0] === "t" ? cards.length - d.index : 1;
  d.n = n;
  S.selection = { pile: d.pile, n };
  render();
  const sources = [...board.querySelectorAll(`[data-pile="${d.pile}"].card`)].slice(-n);
  const rect = sources[0].getBoundingClientRect();
  const ghost = el("div", { class: "ghost", "aria-hidden": "true" });
  ghost.style.width = `${rect.width}px`;
  sources.forEach((node, i) => {
    const copy = node.cloneNode(true);
    copy.removeAttribute("tabindex");
    copy.removeAttribute("data-pile");
    copy.style.top = `${i * rect.height * 0.22}px`;
    ghost.append(copy);
    node.classList.add("lifted");
  });
  d.dx = event.clientX - rect.left;
  d.dy = event.clientY - rect.top;
  document.body.append(ghost);
  d.ghost = ghost;
  moveGhost(event);
}

function moveGhost(event) {
  const d = S.drag;
  d.ghost.style.transform = `translate(${event.clientX - d.dx}px, ${event.clientY - d.dy}px)`;
}

window.addEventListener("pointermove", (event) => {
  const d = S.drag;
  if (!d || event.pointerId !== d.id) return;
  if (!d.ghost) {
    if (Math.hypot(event.clientX - d.x, event.clientY - d.y) < 6) return;
    startDrag(event);
  }
  event.preventDefault();
  moveGhost(event);
});

function endDrag(event, cancelled) {
  const d = S.drag;
  S.drag = null;
  if (!d || !d.ghost) return;
  d.ghost.remove();
  S.suppressClick = true;
  window.setTimeout(() => { S.suppressClick = false; }, 0);
  const h = cancelled ? null : hit(document.elementFromPoint(event.clientX, event.clientY));
  if (!h || h.pile === d.pile) {
    S.selection = null;
    say(h ? "Put back." : "Dropped outside the board: put back.");
    render();
    return;
  }
  place(h.pile);
}

window.addEventListener("pointerup", (event) => {
  if (S.drag && event.pointerId === S.drag.id) endDrag(event, false);
});
window.addEventListener("pointercancel", (event) => {
  if (S.drag && event.pointerId === S.drag.id) endDrag(event, true);
});

// --- keyboard ---------------------------------------------------------------------------

function focusTargets(key) {
  const [pile, index] = key.split(":");
  return { pile, index: index === "" ? null : Number(index) };
}

function keyFor(v, pile, wantIndex) {
  if (pile[0] !== "t") return `${pile}:`;
  const i = Number(pile.slice(1)) - 1;
  const cards = v.tableau[i];
  if (!cards.length) return `${pile}:`;
  const first = Math.min(v.face_down[i], cards.length - 1);
  const index = wantIndex === undefined ? cards.length - 1 : Math.max(first, Math.min(wantIndex, cards.length - 1));
  return `${pile}:${index}`;
}

function moveFocus(key) {
  const v = view();
  const { pile, index } = focusTargets(S.focusKey || defaultFocus(v));
  const tops = topRowPiles(v);
  const cols = v.tableau.map((_, i) => `t${i + 1}`);
  let next = S.focusKey;
  if (pile[0] === "t") {
    const c = cols.indexOf(pile);
    const i = Number(pile.slice(1)) - 1;
    const first = Math.min(v.face_down[i], Math.max(0, v.tableau[i].length - 1));
    if (key === "ArrowLeft") next = keyFor(v, cols[(c + cols.length - 1) % cols.length]);
    else if (key === "ArrowRight") next = keyFor(v, cols[(c + 1) % cols.length]);
    else if (key === "ArrowDown" && index !== null) next = keyFor(v, pile, index + 1);
    else if (key === "ArrowUp") {
      if (index !== null && index > first) next = keyFor(v, pile, index - 1);
      else next = keyFor(v, tops[Math.round((c * (tops.length - 1)) / Math.max(1, cols.length - 1))]);
    }
  } else {
    const t = tops.indexOf(pile);
    if (key === "ArrowLeft") next = keyFor(v, tops[(t + tops.length - 1) % tops.length]);
    else if (key === "ArrowRight") next = keyFor(v, tops[(t + 1) % tops.length]);
    else if (key === "ArrowDown") next = keyFor(v, cols[Math.round((t * (cols.length - 1)) / Math.max(1, tops.length - 1))]);
  }
  S.focusKey = next;
  for (const node of board.querySelectorAll("[data-focus]")) {
    node.tabIndex = node.dataset.focus === next ? 0 : -1;
  }
  focusCurrent();
}

board.addEventListener("keydown", (event) => {
  if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) {
    event.preventDefault();
    moveFocus(event.key);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const { pile, index } = focusTargets(S.focusKey);
    activate(pile, index);
  }
});

board.addEventListener("focusin", (event) => {
  const node = event.target.closest("[data-focus]");
  if (node) S.focusKey = node.dataset.focus;
});

function toggleHelp(force) {
  const help = $("help");
  help.hidden = force === undefined ? !help.hidden : !force;
  $("help-button").setAttribute("aria-expanded", String(!help.hidden));
}

document.addEventListener("keydown", (event) => {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "u" || event.key === "U") undo();
  else if (event.key === "d" || event.key === "D") deal();
  else if (event.key === "?") toggleHelp();
  else if (event.key === "Escape") {
    toggleHelp(false);
    if (S.selection) {
      S.selection = null;
      say("Put back.");
      render();
    }
  }
});

// --- buttons ----------------------------------------------------------------------------

$("undo").addEventListener("click", undo);
$("deal").addEventListener("click", deal);
$("help-button").addEventListener("click", () => toggleHelp());

let resignArmed = null;
$("resign").addEventListener("click", async () => {
  const button = $("resign");
  if (!resignArmed) {
    button.textContent = "Really resign?";
    resignArmed = window.setTimeout(() => {
      resignArmed = null;
      button.textContent = "Resign";
    }, 4000);
    return;
  }
  window.clearTimeout(resignArmed);
  resignArmed = null;
  button.textContent = "Resign";
  try {
    const answer = await api("POST", `attempts/${S.attempt.id}/resign/`);
    if (answer.ok) adoptAttempt(answer.data);
    else if (errorCode(answer) === "attempt_over") await reloadAttempt();
    else say(errorMessage(answer), "error");
  } catch {
    say("No connection: the resignation was not sent. Try again.", "error");
  }
  render();
});

$("start").addEventListener("click", async () => {
  const button = $("start");
  button.disabled = true;
  try {
    const answer = practice
      ? await api("POST", "practice/start/", $("variant").value ? { variant: $("variant").value } : {})
      : await api("POST", `challenges/${challengeId}/start/`);
    if (!answer.ok) {
      say(errorMessage(answer), "error");
      button.disabled = false;
      return;
    }
    adoptAttempt(answer.data);
    button.hidden = true;
    if (practice) {
      // The address names the attempt, so that a reload goes on with it.
      window.history.replaceState(null, "", `?attempt=${answer.data.id}`);
      $("practice-setup").hidden = true;
      showTitle(answer.data.variant, "practice");
    }
    say("The clock is running. Good luck!");
    render();
    focusCurrent();
  } catch {
    say("No connection: the game did not start. Try again.", "error");
    button.disabled = false;
  }
});

// --- hints (practice only): the server's solver suggests; the client only draws it ---------

async function askHint() {
  if (!practice || !playing() || S.busy) return;
  const button = $("hint");
  button.disabled = true;
  say("Asking the solver for a hint…");
  try {
    const answer = await api("GET", `attempts/${S.attempt.id}/hint/`);
    if (!answer.ok) {
      say(errorMessage(answer), "error");
      return;
    }
    const { action, message } = answer.data;
    if (!action) {
      S.hint = null;
      say(message, "error");
    } else {
      const move = parseAction(action);
      S.hint = move ? { ...move, action } : { src: action === "deal" ? "stock" : null, dst: null, n: 0, action };
      const text = move
        ? `Hint: move ${describeSelection({ pile: move.src, n: move.n })} from ${pileName(move.src).toLowerCase()} to ${pileName(move.dst).toLowerCase()} (${action}).`
        : `Hint: ${action}.`;
      say(`${text} ${message}`);
    }
  } catch {
    say("No connection: no hint. Try again.", "error");
  } finally {
    render();
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

// --- result and share -----------------------------------------------------------------

function shareText() {
  const a = S.attempt;
  const variant = VARIANT_NAMES[a.variant] || a.variant;
  const outcome = a.won ? "won ✅" : a.end_reason === "resigned" ? "resigned ❌" : "not won ❌";
  return `Astrocyte Daily ${a.date || "practice"} · ${variant}\n` +
    `${outcome} · ${a.action_count} actions · ${formatSeconds(a.elapsed_seconds)} · score ${a.scoreTotal}` +
    (S.rank ? ` · rank ${S.rank}` : "");
}

let rankAsked = false;
function showResult() {
  const a = S.attempt;
  const section = $("result");
  section.hidden = false;
  const how = a.won ? "You won!" : a.end_reason === "resigned" ? "You resigned." : "The day closed.";
  const parts = S.scoreParts && S.scoreParts.total === a.scoreTotal ? S.scoreParts : null;
  const list = el("dl", { class: "parts" });
  const row = (name, value) => list.append(el("dt", { text: name }), el("dd", { text: String(value) }));
  row("Score", a.scoreTotal);
  if (parts) {
    row("Base", parts.base);
    row("Actions", `−${parts.actions}`);
    row("Time", `−${parts.time_penalty}`);
    row(`Foundations (${parts.foundations})`, `+${parts.foundation_bonus}`);
    row("Win bonus", `+${parts.win_bonus}`);
  }
  row("Time played", formatSeconds(a.elapsed_seconds));
  row("Actions played", a.action_count);
  row("Rank", S.rank ?? (a.kind === "ranked" ? "…" : "practice: unranked"));
  $("result-body").replaceChildren(el("p", { class: "outcome", text: how }), list,
    el("p", {}, el("a", { href: `/replay/${a.id}/`, text: "See the replay of this game" }),
      a.kind === "ranked" ? " · " : null,
      a.kind === "ranked" ? el("a", { href: `/leaderboards/${a.challenge_id}/`, text: "the day's leaderboard" }) : null));
  $("share").value = shareText();
  if (!rankAsked && a.kind === "ranked") {
    rankAsked = true;
    fetchRank();
  }
}

async function fetchRank() {
  for (let i = 0; i < 5; i += 1) {
    try {
      const answer = await api("GET", `leaderboards/challenges/${challengeId}/`);
      if (answer.ok && answer.data.me) {
        S.rank = answer.data.me.rank;
        showResult();
        return;
      }
    } catch {
      /* retried below */
    }
    await sleep(500 * 2 ** i);
  }
}

// --- live panel -------------------------------------------------------------------------

function renderLive(message) {
  if (message.type === "snapshot" || message.type === "board") {
    const body = $("leaderboard").tBodies[0];
    body.replaceChildren(...message.top.map((row) => el("tr",
      { class: S.user && row.username === S.user.username ? "me" : null },
      el("td", { text: String(row.rank) }),
      el("td", { text: row.username }),
      el("td", { text: String(row.score) }),
      el("td", { text: formatSeconds(row.elapsed_seconds) }),
      el("td", { text: String(row.action_count) }))));
    if (!message.top.length) body.append(el("tr", {}, el("td", { colspan: "5", text: "Nobody has finished yet." })));
    if (message.me) {
      S.rank = message.me.rank;
      $("my-rank").textContent = `Your rank: ${message.me.rank} (score ${message.me.score})`;
      if (S.attempt && S.attempt.over) showResult();
    }
  }
  S.playing.apply(message);
  $("playing-count").textContent = `(${S.playing.count})`;
  const rows = S.playing.list();
  $("playing").replaceChildren(...(rows.length ? rows.map((row) => el("li",
    { "data-player": row.username },
    el("b", { text: row.username }),
    ` ${row.runs_completed}/8 runs · ${row.action_count} actions · ${row.deals_left} deals left`))
    : [el("li", { text: "Nobody is playing right now." })]));
}

function startLive() {
  connectLive(challengeId, {
    onMessage: renderLive,
    onState(state, delay) {
      const text = { connecting: "Live: connecting…", open: "Live", closed: "Live updates unavailable",
        retrying: `Live: reconnecting in ${Math.ceil((delay || 0) / 1000)} s…` }[state];
      $("live-state").textContent = text;
      $("live-state").dataset.state = state;
    },
  });
}

// --- start-up -----------------------------------------------------------------------------

function showTitle(variant, date) {
  const name = VARIANT_NAMES[variant] || variant;
  $("game-title").textContent = `${name} · ${date}`;
  document.title = `${name} ${date} · Astrocyte Daily`;
}

async function loadPractice() {
  ({ user: S.user } = await me());
  const wanted = Number(new URLSearchParams(window.location.search).get("attempt"));
  if (!S.user) {
    const link = $("signin");
    link.href = `/login/?next=${encodeURIComponent(window.location.pathname)}`;
    link.hidden = false;
    $("practice-setup").hidden = true;
    say("Sign in to practise.");
  } else if (wanted) {
    S.attempt = { id: wanted };
    await reloadAttempt();
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
  render();
  window.setInterval(tickClock, 250);
  tickClock();
  root.dataset.ready = "true";
  performance.mark("astrocyte-ready");
}

async function load() {
  if (practice) return loadPractice();
  let challengeAnswer;
  try {
    [challengeAnswer, { user: S.user }] = await Promise.all([api("GET", `challenges/${challengeId}/`), me()]);
  } catch {
    showBanner("No connection to the server: retrying…");
    await sleep(2000);
    return load();
  }
  banner.hidden = true;
  if (!challengeAnswer.ok) {
    say(errorMessage(challengeAnswer), "error");
    return;
  }
  S.challenge = challengeAnswer.data;
  const c = S.challenge;
  showTitle(c.variant, c.date);
  if (c.my_attempt) {
    S.attempt = { id: c.my_attempt.id };
    await reloadAttempt();
    say(S.attempt.over ? "This game is over." : "Welcome back: the game goes on where you left it.");
  } else if (!S.user) {
    const link = $("signin");
    link.href = `/login/?next=${encodeURIComponent(window.location.pathname)}`;
    link.hidden = false;
    say("Study the cards. Sign in to play.");
  } else if (c.open) {
    $("start").hidden = false;
    say("Study the cards; the clock starts when you press Start.");
  } else {
    say("This day is closed.");
    $("replays-link").href = `/challenges/${challengeId}/replays/`;
    $("replays-link").hidden = false;
  }
  render();
  startLive();
  window.setInterval(tickClock, 250);
  tickClock();
  root.dataset.ready = "true";
  performance.mark("astrocyte-ready");
}

// A hook for tests and tools: the page's own client code, nothing more.
window.astrocyte = {
  send,
  state: () => ({ attempt: S.attempt, selection: S.selection, busy: S.busy, lastUpdate: S.lastUpdate, hint: S.hint }),
};

load();
