// Replays: the owner's finished game (/replay/<attempt>/) and, once a day is over, everyone's
// games and the solver's solution (/challenges/<id>/replays/). Everything comes from the API:
// the full deal from the server's revealed start_state, the final position from the server,
// and every position on the way from GET /attempts/<id>/replay/?step=k or
// /challenges/<id>/solution/?step=k (the server replays the first k actions with the
// engine); the client replays nothing itself, it draws the answers (cached per step).
import { api, el, errorMessage, formatSeconds, me, NetworkError, progressText, VARIANT_NAMES } from "./api.js";
import { pileName, renderBoard, renderCardRow } from "./board.js";
import { lostVerdict } from "./replay/verdict.js";

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
  list.replaceChildren(...log.map((action, i) => el("li", { "data-action": action, "data-step": String(i + 1) },
    el("code", { text: action }), " ",
    el("span", { text: moveWords(action) }),
    times && times[i] !== undefined ? el("span", { class: "at", text: ` at ${formatSeconds(times[i])}` }) : null)));
}

// A board stepping through a log: First / Previous / Next / Last / Play, a slider, "Step k
// of n", the action just played; ← → (Home, End, Space) when it has the focus. Each step's
// position is asked of the server once and kept.
const PLAY_MS = 700;
let activeStepper = null;

function stepper(host, { label, path, steps, moves = null }) {
  const cache = new Map();
  const board = el("div", { class: "board", role: "group", "aria-roledescription": "solitaire board",
    "aria-label": `${label}: position` });
  const button = (name, text, title) => el("button", { type: "button", "data-step-button": name, text, title, "aria-label": title });
  const first = button("first", "« First", "First: the deal");
  const prev = button("prev", "‹ Previous", "Previous step");
  const play = button("play", "▶ Play", "Play");
  const next = button("next", "Next ›", "Next step");
  const last = button("last", "Last »", "Last: the final position");
  const slider = el("input", { type: "range", class: "step-slider", min: "0", max: String(steps), value: "0",
    step: "1", "aria-label": `${label}: step` });
  const counter = el("span", { class: "step-count", text: `Step 0 of ${steps}` });
  const action = el("p", { class: "step-action", role: "status", "aria-live": "polite" });
  const root = el("div", { class: "stepper", tabindex: "0", "data-steps": String(steps),
    "aria-label": `${label}: ← and → step through the moves, Space plays` },
  el("div", { class: "controls" }, first, prev, play, next, last, slider, counter), action, board);
  host.replaceChildren(root);
  let wanted = 0;
  let timer = null;

  function fetchStep(k) {
    if (!cache.has(k)) {
      const request = api("GET", `${path}?step=${k}`).then((answer) => {
        if (!answer.ok) throw new Error(errorMessage(answer));
        return answer.data;
      });
      request.catch(() => cache.delete(k));
      cache.set(k, request);
    }
    return cache.get(k);
  }

  function draw(data) {
    renderBoard(board, data.state, { reveal: true, revealNote: "face down", dealsLeft: data.deals_left });
    counter.textContent = `Step ${data.step} of ${data.steps}`;
    action.textContent = data.action
      ? `${data.step}. ${data.action}: ${moveWords(data.action)}${data.time !== null ? ` at ${formatSeconds(data.time)}` : ""}` +
        `${data.won ? " — won" : ""}`
      : "The deal, before the first move.";
    root.dataset.step = String(data.step);
    if (moves) {
      for (const item of moves.querySelectorAll("li.current")) item.classList.remove("current");
      const item = data.step ? moves.querySelector(`li[data-step="${data.step}"]`) : null;
      if (item) item.classList.add("current");
    }
    if (data.step < steps) fetchStep(data.step + 1).catch(() => {});
  }

  async function go(k) {
    k = Math.max(0, Math.min(steps, k));
    wanted = k;
    slider.value = String(k);
    counter.textContent = `Step ${k} of ${steps}`;
    first.disabled = prev.disabled = k === 0;
    next.disabled = last.disabled = k === steps;
    try {
      const data = await fetchStep(k);
      if (wanted === k) draw(data);
    } catch (error) {
      if (wanted === k) {
        action.textContent = error instanceof NetworkError ? "No connection to the server." : error.message;
        stop();
      }
    }
    if (timer !== null && k >= steps) stop();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "▶ Play";
    play.title = "Play";
    play.setAttribute("aria-label", "Play");
  }

  function toggle() {
    if (timer !== null) {
      stop();
      return;
    }
    if (wanted >= steps) go(0);
    play.textContent = "❙❙ Pause";
    play.title = "Pause";
    play.setAttribute("aria-label", "Pause");
    timer = setInterval(() => go(wanted + 1), PLAY_MS);
  }

  const stepTo = (k) => {
    stop();
    go(k);
  };
  first.addEventListener("click", () => stepTo(0));
  prev.addEventListener("click", () => stepTo(wanted - 1));
  next.addEventListener("click", () => stepTo(wanted + 1));
  last.addEventListener("click", () => stepTo(steps));
  play.addEventListener("click", toggle);
  slider.addEventListener("input", () => stepTo(Number(slider.value)));
  if (moves) {
    moves.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-step]");
      if (item) stepTo(Number(item.dataset.step));
    });
  }
  const api_ = {
    root,
    key(event) {
      const keys = { ArrowLeft: () => stepTo(wanted - 1), ArrowRight: () => stepTo(wanted + 1),
        Home: () => stepTo(0), End: () => stepTo(steps), " ": toggle };
      const action_ = keys[event.key];
      if (!action_ || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      action_();
    },
  };
  root.addEventListener("focusin", () => { activeStepper = api_; });
  root.addEventListener("pointerdown", () => { activeStepper = api_; });
  root.addEventListener("keydown", (event) => {
    if (event.target === slider && (event.key === "ArrowLeft" || event.key === "ArrowRight" || event.key === "Home" || event.key === "End")) return;
    if (event.target.tagName === "BUTTON" && event.key === " ") return;
    api_.key(event);
  });
  activeStepper = activeStepper || api_;
  go(0);
  return api_;
}

// ← → anywhere on the page (outside a control) step the board last used.
document.addEventListener("keydown", (event) => {
  if (!activeStepper || activeStepper.root.contains(event.target)) return;
  const tag = event.target && event.target.tagName;
  if (["INPUT", "TEXTAREA", "SELECT", "BUTTON", "SUMMARY", "A"].includes(tag)) return;
  activeStepper.key(event);
});

function dealsIn(state) {
  return state.tableau.length ? Math.floor(state.stock.length / state.tableau.length) : 0;
}

// The deal as it started: every card once the server has made it public (a daily's once its
// day is over), else as the player saw it, face-down and stock cards hidden.
function showDeal(start, revealed = true) {
  renderBoard($("deal-board"), start, { reveal: true, dealsLeft: dealsIn(start) });
  if (!revealed) {
    $("deal-title").textContent = "The deal as you saw it";
    $("deal-note").textContent = "Face-down and stock cards stay hidden until the day is over, for everyone at once.";
    $("deal-board").setAttribute("aria-label", "The deal, face-down cards hidden");
    $("stock-title").hidden = true;
  } else if (start.stock.length) {
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
  showDeal(a.start_state, a.deal_revealed);
  renderBoard($("final-board"), a.state, { dealsLeft: a.deals_left });
  $("final").hidden = false;
  moveList($("moves"), a.log, a.action_times);
  $("moves-title").textContent = `Moves (${a.log.length})`;
  $("moves-section").hidden = false;
  stepper($("stepper"), { label: "Your game", path: `attempts/${a.id}/replay/`, steps: a.log.length, moves: $("moves") });
  $("steps").hidden = false;
  say(`${outcome(a)}: ${a.action_count} actions, score ${a.score}.`);
  if (a.deal_revealed) analysisPanel(a);
}

// The analysis (POST/GET attempts/<id>/analysis/): asked on a click, polled while it runs,
// drawn as an inline SVG chart of moves to win along the game, the losing action marked.
const SVG = "http://www.w3.org/2000/svg";

function svg(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export function chartPoints(positions, steps, width, height) {
  const known = positions.filter((p) => p.moves_to_win !== null);
  const top = Math.max(1, ...known.map((p) => p.moves_to_win));
  return known.map((p) => ({
    x: Math.round((p.step / Math.max(1, steps)) * width),
    y: Math.round(height - (p.moves_to_win / top) * height),
    step: p.step,
    moves: p.moves_to_win,
  }));
}

// The chart's axes: actions played along, moves to win up, each with its ends' numbers.
function drawAxes(chart, width, height, steps, top) {
  const text = (x, y, anchor, words, id = null) => {
    const node = svg("text", { x, y, "text-anchor": anchor, class: "axis-label", ...(id ? { id } : {}) });
    node.textContent = words;
    chart.append(node);
  };
  chart.append(svg("line", { x1: 0, y1: height, x2: width, y2: height, stroke: "currentColor", "stroke-width": 1, class: "axis" }));
  chart.append(svg("line", { x1: 0, y1: 0, x2: 0, y2: height, stroke: "currentColor", "stroke-width": 1, class: "axis" }));
  text(0, height + 16, "start", "0");
  text(width, height + 16, "end", String(steps));
  text(width / 2, height + 30, "middle", "actions played", "analysis-x-axis");
  text(-6, 4, "end", String(top));
  text(-6, height, "end", "0");
  const title = svg("text", { x: -34, y: height / 2, "text-anchor": "middle", class: "axis-label", id: "analysis-y-axis",
    transform: `rotate(-90 -34 ${height / 2})` });
  title.textContent = "moves to win";
  chart.append(title);
}

function drawChart(host, analysis, steps) {
  const width = 600, height = 160;
  const chart = svg("svg", { id: "analysis-svg", viewBox: `-48 -10 ${width + 60} ${height + 48}`, role: "img",
    "aria-label": "Moves to win along the game", width: "100%" });
  const points = chartPoints(analysis.positions, steps, width, height);
  drawAxes(chart, width, height, steps, Math.max(1, ...points.map((p) => p.moves)));
  chart.append(svg("polyline", { points: points.map((p) => `${p.x},${p.y}`).join(" "), fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  for (const p of points) {
    const dot = svg("circle", { cx: p.x, cy: p.y, r: 3, class: "analysis-point" });
    dot.append(svg("title", {}));
    dot.firstChild.textContent = `after ${p.step} actions: ${p.moves} moves to win`;
    chart.append(dot);
  }
  // a vertical line after action ``index`` (0-based)
  const markAfter = (index, attrs) => {
    const x = Math.round(((index + 1) / Math.max(1, steps)) * width);
    const mark = svg("line", { x1: x, x2: x, y1: 0, y2: height, stroke: "crimson", "stroke-width": 2, ...attrs });
    chart.append(mark);
    return mark;
  };
  const lost = analysis.lost_at, bound = analysis.lost_by;
  if (lost) markAfter(lost.index, { id: "analysis-lost-mark" });
  if (bound && !(lost && bound.index === lost.index)) {  // a proven bound later than the losing action, dashed
    const mark = markAfter(bound.index, { id: "analysis-lost-by-mark", "stroke-dasharray": "4 3" });
    mark.append(svg("title", {}));
    mark.firstChild.textContent = `proven lost after action ${bound.index + 1}`;
  }
  host.replaceChildren(chart);
}

function showAlternative(analysis) {
  const states = analysis.alternative_states;
  let k = 0;
  const draw = () => {
    renderBoard($("analysis-board"), states[k], { reveal: true });
    $("analysis-alt-step").textContent = k === 0
      ? `Before action ${analysis.lost_at.index + 1}`
      : `${k} of ${states.length - 1}: ${moveWords(analysis.alternative[k - 1])}`;
  };
  $("analysis-alt-prev").onclick = () => { if (k > 0) { k -= 1; draw(); } };
  $("analysis-alt-next").onclick = () => { if (k < states.length - 1) { k += 1; draw(); } };
  $("analysis-alt-view").hidden = false;
  draw();
}

function drawAnalysis(analysis, a) {
  const c = analysis.counts;
  $("analysis-status").textContent = analysis.status === "done"
    ? `Analysed ${analysis.positions.length} positions in ${analysis.worker_seconds} s: ${c.solved} winnable, ${c.unsolvable} lost, ${c.unknown} undecided.`
    : `Analysis ${analysis.status}: ${analysis.done} of ${analysis.planned} positions…`;
  drawChart($("analysis-chart"), analysis, a.log.length);
  const verdict = lostVerdict(analysis, a.won, moveWords);
  if (verdict) $("analysis-lost").textContent = verdict;
  if (analysis.lost_at) {
    $("analysis-alt").hidden = analysis.alternative.length === 0;
    $("analysis-alt").onclick = () => showAlternative(analysis);
  }
  if (analysis.saved) {
    const most = (analysis.saved.where || [])[0];
    $("analysis-saved").textContent = `Won in ${analysis.saved.played} actions; the shortest line found takes ${analysis.saved.shortest} (${analysis.saved.actions} saved).`
      + (most ? ` Most were spent between actions ${most.from_step + 1} and ${most.to_step}: ${most.actions} more than the shortest line from there.` : "");
  }
}

function analysisPanel(a) {
  const path = `attempts/${a.id}/analysis/`;
  $("analysis").hidden = false;
  const poll = async (method) => {
    const answer = await api(method, path);
    if (!answer.ok) {
      if (method === "GET" && answer.status === 404) return;
      $("analysis-status").textContent = errorMessage(answer);
      return;
    }
    $("analysis-ask").hidden = true;
    drawAnalysis(answer.data, a);
    if (answer.data.status === "pending" || answer.data.status === "running") setTimeout(() => poll("GET"), 1000);
  };
  $("analysis-ask").onclick = () => poll("POST");
  poll("GET");
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
  const solutionBoard = el("div", { id: "solution-stepper" });
  $("solution").before(solutionBoard);
  stepper(solutionBoard, { label: "The solution", path: `challenges/${c.id}/solution/`, steps: r.solution.length, moves: $("solution") });
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
  const faceDown = games.data.face_down_dealt;
  $("games-title").textContent = `Everyone's games (${rows.length})`;
  $("games").replaceChildren(...(rows.length ? rows.map((row, i) => {
    const list = el("ol", { class: "moves" });
    moveList(list, row.log, row.action_times);
    const host = el("div", { class: "game-stepper" });
    const details = el("details", { class: "game", id: `game-${row.id}`, "data-username": row.username, "data-attempt": String(row.id) },
      el("summary", {},
        el("b", { text: `${i + 1}. ${row.username}` }),
        ` — ${outcome(row)}, score ${row.score}, ${row.action_count} actions, ` +
        `${formatSeconds(row.elapsed_seconds || 0)}, ${progressText(row, faceDown)}`),
      host, list);
    // The board of a game is set up (and its first step asked for) when it is opened.
    details.addEventListener("toggle", () => {
      if (details.open && !host.firstChild) {
        stepper(host, { label: `${row.username}'s game`, path: `attempts/${row.id}/replay/`, steps: row.log.length, moves: list });
      }
    });
    return details;
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
