// The board's roving keyboard focus, as keys: "t3:5" (card 5 of column 3), "t3:" (an empty
// column), "c1:", "f2:", "stock:". Where an arrow key goes from a key, in a view. Pure
// functions (unit-tested); input.js moves the DOM focus.
import { topRowPiles } from "../board.js";

export function parseFocusKey(key) {
  const [pile, index] = key.split(":");
  return { pile, index: index === "" ? null : Number(index) };
}

// Where the focus starts: the top card of the first column.
export function defaultFocus(view) {
  const cards = view.tableau[0];
  if (!cards) return "stock:";
  return cards.length ? `t1:${cards.length - 1}` : "t1:";
}

// The key of a pile; in a column, of card wantIndex (default the top card) kept within the
// face-up cards.
export function keyFor(view, pile, wantIndex) {
  if (pile[0] !== "t") return `${pile}:`;
  const i = Number(pile.slice(1)) - 1;
  const cards = view.tableau[i];
  if (!cards.length) return `${pile}:`;
  const first = Math.min(view.face_down[i], cards.length - 1);
  const index = wantIndex === undefined ? cards.length - 1 : Math.max(first, Math.min(wantIndex, cards.length - 1));
  return `${pile}:${index}`;
}

// The key an arrow key ("ArrowLeft" …) moves the focus to from `key`: ←/→ along a row
// (wrapping), ↑/↓ within a column's face-up cards or between the top row and the columns.
export function nextFocusKey(view, key, arrow) {
  const { pile, index } = parseFocusKey(key);
  const tops = topRowPiles(view);
  const cols = view.tableau.map((_, i) => `t${i + 1}`);
  // The pile of the other row in about the same place.
  const across = (i, from, to) => to[Math.round((i * (to.length - 1)) / Math.max(1, from.length - 1))];
  if (pile[0] === "t") {
    const c = cols.indexOf(pile);
    const first = Math.min(view.face_down[c], Math.max(0, view.tableau[c].length - 1));
    if (arrow === "ArrowLeft") return keyFor(view, cols[(c + cols.length - 1) % cols.length]);
    if (arrow === "ArrowRight") return keyFor(view, cols[(c + 1) % cols.length]);
    if (arrow === "ArrowDown" && index !== null) return keyFor(view, pile, index + 1);
    if (arrow === "ArrowUp") {
      return index !== null && index > first ? keyFor(view, pile, index - 1) : keyFor(view, across(c, cols, tops));
    }
    return key;
  }
  const t = tops.indexOf(pile);
  if (arrow === "ArrowLeft") return keyFor(view, tops[(t + tops.length - 1) % tops.length]);
  if (arrow === "ArrowRight") return keyFor(view, tops[(t + 1) % tops.length]);
  if (arrow === "ArrowDown") return keyFor(view, across(t, tops, cols));
  return key;
}
