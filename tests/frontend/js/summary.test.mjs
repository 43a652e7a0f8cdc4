// home/summary.js: the top three and yesterday's result in words.
import assert from "node:assert/strict";
import { test } from "node:test";

import { dayBefore, topThreeText, yesterdayText } from "../../../frontend/static/frontend/js/home/summary.js";

const row = (rank, username, score, won = true) => ({ rank, username, score, won });

test("the top three of a day's board, or nobody yet", () => {
  const top = [row(1, "ann", 1150), row(2, "bob", 990), row(2, "cy", 990), row(4, "dee", 10, false)];
  assert.equal(topThreeText(top), "1. ann 1150 · 2. bob 990 · 2. cy 990");
  assert.equal(topThreeText([row(1, "eve", 300, false)]), "1. eve 300 (not won)");
  assert.equal(topThreeText([]), "Nobody has finished yet.");
});

test("yesterday's result: played or not, with the day's best", () => {
  const board = { top: [row(1, "ann", 1150)], counts: { finished: 12, playing: 0 }, me: { rank: 4, score: 980, won: true } };
  assert.equal(yesterdayText("Astrocyte", board),
    "Astrocyte, yesterday: you won, score 980, rank 4 of 12. The best: ann with 1150.");
  assert.equal(yesterdayText("Astrocyte", { ...board, me: null }),
    "Astrocyte, yesterday: you did not play. The best: ann with 1150.");
  assert.equal(yesterdayText("Spider (1 suit)", { top: [], counts: { finished: 0 }, me: null }),
    "Spider (1 suit), yesterday: you did not play.");
});

test("the day before, across a month and a year", () => {
  assert.equal(dayBefore("2026-03-01"), "2026-02-28");
  assert.equal(dayBefore("2027-01-01"), "2026-12-31");
});
