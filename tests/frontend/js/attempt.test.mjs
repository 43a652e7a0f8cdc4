// play/attempt.js: the page's attempt, its animations and its clock, from the server's data.
import assert from "node:assert/strict";
import { test } from "node:test";

import { afterAnswer, clockSeconds, flashOf, fromDetail, safeToFinish } from "../../../frontend/static/frontend/js/play/attempt.js";
import { smallView } from "./views.mjs";

function answer(state, extra = {}) {
  return {
    offset: 8, action_count: 8, state, legal_actions: ["undo"], won: false, over: false,
    deals_left: 2, runs_completed: 1, score: { total: 640, base: 500 }, elapsed_seconds: 31.5,
    revealed: [], ...extra,
  };
}

test("the score shown is the server's total, however the answer spells it", () => {
  assert.equal(fromDetail({ id: 1, score: 512 }).scoreTotal, 512);
  assert.equal(fromDetail({ id: 1, score: { total: 640 } }).scoreTotal, 640);
  assert.equal(fromDetail({ id: 1, score: null }).scoreTotal, null);
});

test("an answer replaces the position, count and score; the rest of the attempt stays", () => {
  const before = fromDetail({ id: 3, kind: "ranked", variant: "spider1", state: smallView(), score: 500, offset: 7 });
  const after = afterAnswer(before, answer(smallView()));
  assert.equal(after.id, 3);
  assert.equal(after.kind, "ranked");
  assert.equal(after.offset, 8);
  assert.equal(after.action_count, 8);
  assert.equal(after.scoreTotal, 640);
  assert.deepEqual(after.legal_actions, ["undo"]);
});

test("turned-up cards flip, dealt cards fly in instead, a new complete run pops home", () => {
  const before = { state: smallView() };
  const turned = flashOf(before, answer(smallView(), { revealed: [{ pile: "t1", card: "6D" }] }));
  assert.deepEqual([...turned.flip], ["t1"]);
  assert.equal(turned.dealt, false);
  assert.equal(turned.home.size, 0);

  const dealtState = smallView();
  dealtState.stock = dealtState.stock.slice(3);
  const dealt = flashOf(before, answer(dealtState, { revealed: [{ pile: "t1", card: "6D" }] }));
  assert.equal(dealt.dealt, true);
  assert.equal(dealt.flip.size, 0);

  const homeState = smallView();
  homeState.foundations[1] = [...homeState.foundations[0]];
  const home = flashOf(before, answer(homeState));
  assert.deepEqual([...home.home], ["f2"]); // f1 was already complete
});

test("the clock runs from the server's seconds and stops with the attempt", () => {
  assert.equal(clockSeconds(null, 0, 0, 5000), 0);
  assert.equal(clockSeconds({ over: false }, 30, 1000, 3500), 32.5);
  assert.equal(clockSeconds({ over: true, elapsed_seconds: 95 }, 30, 1000, 99999), 95);
});

test("safe to finish: every card face up and the stock dealt, nothing else", () => {
  const view = { stock: [], face_down: [0, 0, 0] };
  assert.equal(safeToFinish(view), true);
  assert.equal(safeToFinish({ ...view, face_down: [0, 1, 0] }), false);
  assert.equal(safeToFinish({ ...view, stock: [null, null] }), false);
  assert.equal(safeToFinish(null), false);
});
