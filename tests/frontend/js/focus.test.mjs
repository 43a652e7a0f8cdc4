// play/focus.js: where the arrow keys take the board's one focus.
import assert from "node:assert/strict";
import { test } from "node:test";

import { defaultFocus, keyFor, nextFocusKey, parseFocusKey } from "../../../frontend/static/frontend/js/play/focus.js";
import { smallView } from "./views.mjs";

test("the focus starts on the first column's top card", () => {
  const v = smallView();
  assert.equal(defaultFocus(v), "t1:4");
  v.tableau[0] = [];
  assert.equal(defaultFocus(v), "t1:");
  assert.equal(defaultFocus({ ...v, tableau: [] }), "stock:");
  assert.deepEqual(parseFocusKey("t1:4"), { pile: "t1", index: 4 });
  assert.deepEqual(parseFocusKey("stock:"), { pile: "stock", index: null });
});

test("up and down move within a column's face-up cards only", () => {
  const v = smallView();
  assert.equal(nextFocusKey(v, "t1:4", "ArrowUp"), "t1:3");
  assert.equal(nextFocusKey(v, "t1:3", "ArrowUp"), "t1:2");
  assert.equal(nextFocusKey(v, "t1:4", "ArrowDown"), "t1:4"); // already the top card
  assert.equal(nextFocusKey(v, "t1:2", "ArrowDown"), "t1:3");
  assert.equal(keyFor(v, "t1", 0), "t1:2"); // a face-down card is never focused
  assert.equal(keyFor(v, "t2"), "t2:");
  assert.equal(keyFor(v, "c1", 0), "c1:");
});

test("left and right go round a row; up from a column's first face-up card reaches the top row", () => {
  const v = smallView(); // top row: stock c1 c2 f1 f2; columns t1 t2 t3
  assert.equal(nextFocusKey(v, "t1:4", "ArrowLeft"), "t3:0");
  assert.equal(nextFocusKey(v, "t3:0", "ArrowRight"), "t1:4");
  assert.equal(nextFocusKey(v, "t1:4", "ArrowRight"), "t2:");
  assert.equal(nextFocusKey(v, "t1:2", "ArrowUp"), "stock:");
  assert.equal(nextFocusKey(v, "t3:0", "ArrowUp"), "f2:");
  assert.equal(nextFocusKey(v, "t2:", "ArrowUp"), "c2:");
  assert.equal(nextFocusKey(v, "stock:", "ArrowLeft"), "f2:");
  assert.equal(nextFocusKey(v, "f2:", "ArrowRight"), "stock:");
  assert.equal(nextFocusKey(v, "c2:", "ArrowDown"), "t2:");
  assert.equal(nextFocusKey(v, "f2:", "ArrowDown"), "t3:0");
  assert.equal(nextFocusKey(v, "c1:", "ArrowUp"), "c1:");
});
