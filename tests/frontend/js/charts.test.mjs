// player/charts.js: the rating line spans the box with the best day at the top; the calendar
// ends with today's week, Monday first, and marks won, played and empty days.
import assert from "node:assert/strict";
import { test } from "node:test";

import { calendarCells, linePoints } from "../../../frontend/static/frontend/js/player/charts.js";

test("the rating line runs from left to right, the highest value at the top", () => {
  const { points, low, high } = linePoints([20, 30, 25], 100, 50, 10);
  assert.deepEqual(points.map((p) => p.x), [10, 50, 90]);
  assert.equal(points[1].y, 10); // the highest
  assert.equal(points[0].y, 40); // the lowest
  assert.equal(points[2].y, 25);
  assert.deepEqual([low, high], [20, 30]);
});

test("one rated day sits in the middle, equal days draw a level line", () => {
  assert.deepEqual(linePoints([7], 100, 50).points, [{ x: 50, y: 25 }]);
  assert.deepEqual(linePoints([3, 3], 100, 50, 10).points.map((p) => p.y), [25, 25]);
  assert.deepEqual(linePoints([], 100, 50).points, []);
});

test("the calendar ends today, in whole weeks from a Monday", () => {
  // 2026-12-03 is a Thursday: its week's Monday is 2026-11-30.
  const cells = calendarCells([], "2026-12-03", 2);
  assert.equal(cells[0].date, "2026-11-23");
  assert.equal(cells[0].weekday, 0);
  assert.equal(cells.at(-1).date, "2026-12-03");
  assert.equal(cells.at(-1).week, 1);
  assert.equal(cells.at(-1).weekday, 3);
  assert.equal(cells.length, 7 + 4);
});

test("a day with a win is won, one with games only is played, others none", () => {
  const days = [
    { date: "2026-12-01", variant: "astrocyte", won: false, score: 40 },
    { date: "2026-12-01", variant: "spider1", won: true, score: 900 },
    { date: "2026-12-02", variant: "astrocyte", won: false, score: 10 },
  ];
  const kinds = Object.fromEntries(calendarCells(days, "2026-12-03", 1).map((c) => [c.date, c.kind]));
  assert.equal(kinds["2026-12-01"], "won");
  assert.equal(kinds["2026-12-02"], "played");
  assert.equal(kinds["2026-12-03"], "none");
  assert.equal(calendarCells(days, "2026-12-03", 1).find((c) => c.date === "2026-12-01").games.length, 2);
});
