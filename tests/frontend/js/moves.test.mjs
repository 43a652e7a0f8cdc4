// play/moves.js: which listed actions a pick offers, and what a pick takes hold of.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  describeCards,
  destinations,
  moveText,
  movesFrom,
  parseAction,
  pick,
  pileCards,
  runLength,
} from "../../../frontend/static/frontend/js/play/moves.js";
import { smallView } from "./views.mjs";

const LEGAL = ["t1-t2:3", "t1-t2", "t1-c2", "t3-t2", "c1-t3", "t1-f2", "deal", "undo"];

test("the notation is read as the server writes it", () => {
  assert.deepEqual(parseAction("t10-t3:4"), { src: "t10", dst: "t3", n: 4 });
  assert.deepEqual(parseAction("c1-t3"), { src: "c1", dst: "t3", n: 1 });
  assert.equal(parseAction("deal"), null);
  assert.equal(parseAction("t1-x2"), null);
  assert.equal(moveText("t1", 3, "t2"), "t1-t2:3");
  assert.equal(moveText("t1", 1, "c2"), "t1-c2");
});

test("a picked card offers exactly the destinations the server lists for it", () => {
  assert.deepEqual(movesFrom(LEGAL, "t1", 1), ["t1-t2", "t1-c2", "t1-f2"]);
  assert.deepEqual(movesFrom(LEGAL, "t1", 3), ["t1-t2:3"]);
  assert.deepEqual(movesFrom(LEGAL, "t1", 2), []);
  assert.deepEqual([...destinations(LEGAL, { pile: "t1", n: 1 })], ["t2", "c2", "f2"]);
  assert.deepEqual([...destinations(LEGAL, { pile: "c1", n: 1 })], ["t3"]);
  assert.equal(destinations(LEGAL, null).size, 0);
  assert.equal(destinations([], { pile: "t1", n: 1 }).size, 0);
});

test("a pick takes the card and those on it, never a face-down card or an empty pile", () => {
  const v = smallView();
  assert.deepEqual(pick(v, "t1", null), { n: 1 });
  assert.deepEqual(pick(v, "t1", 3), { n: 2 });
  assert.deepEqual(pick(v, "t1", 2), { n: 3 });
  assert.deepEqual(pick(v, "t1", 1), { refused: "face down" });
  assert.deepEqual(pick(v, "t2", null), { refused: "empty" });
  assert.deepEqual(pick(v, "c2", null), { refused: "empty" });
  assert.deepEqual(pick(v, "c1", 0), { n: 1 });
  assert.deepEqual(pick(v, "f1", 12), { n: 1 });
  assert.equal(runLength(v, "t1", 2), 3);
  assert.equal(runLength(v, "c1", 0), 1);
});

test("piles and picked cards are named in words", () => {
  const v = smallView();
  assert.deepEqual(pileCards(v, "c1"), ["QD"]);
  assert.deepEqual(pileCards(v, "c2"), []);
  assert.equal(pileCards(v, "f1").length, 13);
  assert.deepEqual(pileCards(v, "stock"), []);
  assert.equal(describeCards(v, "t1", 1), "Seven of hearts");
  assert.equal(describeCards(v, "t1", 3), "Nine of hearts and the 2 cards on it");
  assert.equal(describeCards(v, "t1", 2), "Eight of spades and the card on it");
  assert.equal(describeCards(v, "c1", 1), "Queen of diamonds");
});
