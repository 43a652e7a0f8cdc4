// Motion: the cards an action moved slide from where they were to where they are now
// (FLIP: measured before the new board is drawn, animated after), a deal's cards fly from
// the stock to the columns, a win gets a celebration. Short (MOVE_MS) and on the Web
// Animations API: nothing waits for an animation, so input is never delayed; under
// prefers-reduced-motion nothing moves at all.
import { parseAction } from "./moves.js";

export const MOVE_MS = 150;
const DEAL_STAGGER_MS = 18;

export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

function cardsOf(board, pile) {
  return [...board.querySelectorAll(`.card[data-pile="${pile}"]`)];
}

// Where the cards of a one-action batch are before it is drawn (null: nothing to animate).
export function measure(board, actions) {
  if (reducedMotion() || actions.length !== 1) return null;
  const [action] = actions;
  if (action === "deal") {
    const stock = board.querySelector('[data-pile="stock"]');
    return stock ? { kind: "deal", from: stock.getBoundingClientRect() } : null;
  }
  const move = parseAction(action);
  if (!move) return null;
  const rects = cardsOf(board, move.src).slice(-move.n).map((node) => node.getBoundingClientRect());
  return rects.length === move.n ? { kind: "move", dst: move.dst, rects } : null;
}

function slide(node, from, delay = 0) {
  const to = node.getBoundingClientRect();
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  if (!dx && !dy) return;
  node.animate(
    [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
    { duration: MOVE_MS, delay, easing: "ease-out", fill: "backwards" },
  );
}

// After the new board is drawn: slide what `measure` saw to where it is now.
export function animate(board, measured) {
  if (!measured) return;
  if (measured.kind === "deal") {
    const columns = [...board.querySelectorAll(".column[data-pile]")];
    columns.forEach((column, i) => {
      const cards = cardsOf(board, column.dataset.pile);
      if (cards.length) slide(cards[cards.length - 1], measured.from, i * DEAL_STAGGER_MS);
    });
    return;
  }
  const moved = cardsOf(board, measured.dst).slice(-measured.rects.length);
  // (a run that went home on arrival is not in the column: its own animation shows it)
  if (moved.length !== measured.rects.length) return;
  moved.forEach((node, i) => slide(node, measured.rects[i]));
}

// A won game: the foundations' cards bounce, one after the other.
export function celebrate(board) {
  if (reducedMotion()) return;
  board.querySelectorAll(".foundation .card").forEach((node, i) => {
    node.animate(
      [{ transform: "none" }, { transform: "translateY(-18px) scale(1.08)" }, { transform: "none" }],
      { duration: 500, delay: i * 90, easing: "ease-out" },
    );
  });
}
