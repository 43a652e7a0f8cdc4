// docs/rules.md's action notation and the piles of a view, read only to know which of the
// server's listed actions start at a pile, where they go, and which cards a pick takes.
// No rules here: whatever is posted, the server judges. Pure functions (unit-tested).
import { cardName } from "../board.js";

const ACTION_RE = /^([tcf]\d+)-([tcf]\d+)(?::(\d+))?$/;

// "t3-t7:2" -> {src: "t3", dst: "t7", n: 2}; "deal", "undo" or nonsense -> null.
export function parseAction(action) {
  const m = ACTION_RE.exec(action);
  return m ? { src: m[1], dst: m[2], n: m[3] ? Number(m[3]) : 1 } : null;
}

export function moveText(src, n, dst) {
  return `${src}-${dst}${n >= 2 ? `:${n}` : ""}`;
}

// The listed actions that move n cards from pile src, in the server's order.
export function movesFrom(legal, src, n) {
  return legal.filter((action) => {
    const move = parseAction(action);
    return move && move.src === src && move.n === n;
  });
}

// The piles the listed actions let the selection ({pile, n} or null) go to.
export function destinations(legal, selection) {
  if (!selection) return new Set();
  return new Set(movesFrom(legal, selection.pile, selection.n).map((a) => parseAction(a).dst));
}

const columnIndex = (pile) => Number(pile.slice(1)) - 1;

// The cards of a pile in a view (a cell holds one card or none); [] for the stock.
export function pileCards(view, pile) {
  const i = columnIndex(pile);
  if (pile[0] === "t") return view.tableau[i];
  if (pile[0] === "c") return view.cells[i] ? [view.cells[i]] : [];
  if (pile[0] === "f") return view.foundations[i];
  return [];
}

// How many cards a player takes hold of at card `index` of a pile: that card and the ones
// on it in a column, the top card anywhere else.
export function runLength(view, pile, index) {
  return pile[0] === "t" ? pileCards(view, pile).length - index : 1;
}

// A pick at (pile, index; index null for a column's top card): {n} cards, or {refused}
// with the reason ("empty", "face down") when there is nothing to take hold of.
export function pick(view, pile, index) {
  const cards = pileCards(view, pile);
  if (!cards.length) return { refused: "empty" };
  if (pile[0] !== "t") return { n: 1 };
  const at = index === null || index === undefined ? cards.length - 1 : index;
  if (at < view.face_down[columnIndex(pile)]) return { refused: "face down" };
  return { n: cards.length - at };
}

// The n top cards of a pile in words: "Seven of hearts and the 2 cards on it".
export function describeCards(view, pile, n) {
  const cards = pileCards(view, pile);
  const first = cards[cards.length - n];
  if (n === 2) return `${cardName(first)} and the card on it`;
  return n > 2 ? `${cardName(first)} and the ${n - 1} cards on it` : cardName(first);
}
