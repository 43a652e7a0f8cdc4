// replay/verdict.js: where a lost game was lost, in words. A proof is said plainly (with the
// positions it searched); "as far as the analysis could tell" only when a budget ran out;
// no losing action found says why.
import assert from "node:assert/strict";
import { test } from "node:test";

import { lostVerdict } from "../../../frontend/static/frontend/js/replay/verdict.js";

const done = (positions, extra = {}) => ({ status: "done", positions, lost_at: null, alternative: [], ...extra });
const at = (step, status, nodes = 10, budget = 50000) => ({ step, status, moves_to_win: status === "solved" ? 5 : null, nodes, budget });

test("a deal proven lost was never winnable, with the proof's size", () => {
  const analysis = done([at(0, "unsolvable", 12345), at(3, "unsolvable"), at(4, "unsolvable")]);
  assert.equal(lostVerdict(analysis, false), "This deal was never winnable (proven: 12,345 positions searched).");
});

test("a proven losing action is said plainly", () => {
  const analysis = done([at(0, "solved"), at(6, "solved"), at(7, "unsolvable", 321)], { lost_at: { index: 6, action: "t1-t2", proven: true } });
  const text = lostVerdict(analysis, false, (action) => `move ${action}`);
  assert.equal(text, "The game was lost here: action 7, move t1-t2. After it no win exists (proven: 321 positions searched).");
  assert.doesNotMatch(text, /as far as/);
});

test("a proof that later positions' proofs covered whole says so, with no count", () => {
  const analysis = done([at(0, "solved"), at(6, "solved"), at(7, "unsolvable", 0), at(9, "unsolvable", 800)], { lost_at: { index: 6, action: "t1-t2", proven: true } });
  assert.equal(
    lostVerdict(analysis, false),
    "The game was lost here: action 7, t1-t2. After it no win exists (proven by the proofs of the positions after it).",
  );
});

test("an unproven losing action is 'as far as the analysis could tell', naming the budget", () => {
  const analysis = done([at(0, "solved"), at(6, "solved"), at(7, "unknown", 100000, 50000)], { lost_at: { index: 6, action: "deal", proven: false } });
  assert.equal(
    lostVerdict(analysis, false),
    "The game was lost here, as far as the analysis could tell: no win was found after action 7, deal, within its budget of 50,000 positions.",
  );
});

test("an unproven losing action also names the earliest action proven losing, with the proof's size", () => {
  const lostBy = { index: 11, action: "t3-t4", nodes: 4321 };
  const analysis = done([at(0, "solved"), at(6, "solved"), at(7, "unknown", 100000, 50000), at(12, "unsolvable", 4321)], {
    lost_at: { index: 6, action: "deal", proven: false },
    lost_by: lostBy,
  });
  assert.equal(
    lostVerdict(analysis, false, (action) => `move ${action}`),
    "The game was lost here, as far as the analysis could tell: no win was found after action 7, move deal, within its budget of 50,000 positions. It was lost there or later, and by action 12, move t3-t4, at the latest: after it no win existed (proven: 4,321 positions searched).",
  );
  const covered = lostVerdict({ ...analysis, lost_by: { ...lostBy, nodes: 0 } }, false);
  assert.match(covered, /by action 12, t3-t4, at the latest: after it no win existed \(proven by the proofs of the positions after it\)\.$/);
  const spent = lostVerdict(done([at(0, "solved"), at(3, "solved"), at(7, "unknown", 0, 0), at(12, "unsolvable")], { lost_by: lostBy }), false);
  assert.match(spent, /a win found before them and none after\. After action 12, t3-t4, no win existed \(proven: 4,321/);
  const fromDeal = lostVerdict(done([at(0, "unknown", 100000), at(12, "unsolvable")], { lost_by: lostBy }), false);
  assert.match(fromDeal, /cannot tell where \(or whether\) the game was lost\. After action 12, t3-t4, no win existed/);
});

test("a proven losing action says its proof once, not again as a bound", () => {
  const analysis = done([at(0, "solved"), at(6, "solved"), at(7, "unsolvable", 321)], {
    lost_at: { index: 6, action: "t1-t2", proven: true },
    lost_by: { index: 6, action: "t1-t2", nodes: 321 },
  });
  assert.equal(lostVerdict(analysis, false), "The game was lost here: action 7, t1-t2. After it no win exists (proven: 321 positions searched).");
});

test("no losing action found: the budget ran out, said so (from the deal, or mid-bisection)", () => {
  const none = lostVerdict(done([at(0, "unknown", 100000), at(9, "unknown"), at(10, "unknown")]), false);
  assert.match(none, /^No losing action was found: no win was found even from the deal within its budget of 50,000 positions, so/);
  const spent = lostVerdict(done([at(0, "solved"), at(3, "solved"), at(7, "unknown", 0, 0), at(10, "unknown")]), false);
  assert.equal(spent, "No losing action was found: the analysis's budget ran out between action 4 and action 7, a win found before them and none after.");
  assert.doesNotMatch(spent + none, /never winnable|lost here/);
});

test("a game resigned while winnable, a won game, an unfinished analysis: no losing action", () => {
  assert.equal(lostVerdict(done([at(10, "solved")]), false), "No losing action: the game could still be won when it ended.");
  assert.equal(lostVerdict(done([at(0, "unsolvable")]), true), null);
  assert.equal(lostVerdict({ status: "running", positions: [at(0, "unsolvable")] }, false), null);
});
