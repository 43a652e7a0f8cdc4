// archive/calendar.js: the archive's month as weeks, Monday first.
import assert from "node:assert/strict";
import { test } from "node:test";

import { monthTitle, monthWeeks } from "../../../frontend/static/frontend/js/archive/calendar.js";

test("a month is named in words", () => {
  assert.equal(monthTitle("2026-11"), "November 2026");
  assert.equal(monthTitle("2027-01"), "January 2027");
});

test("weeks start on Monday, blanks pad the first and last week, dailies sit on their date", () => {
  // November 2026 starts on a Sunday and has 30 days.
  const daily = { date: "2026-11-28", challenge_id: 7, finished: 3 };
  const weeks = monthWeeks("2026-11", [daily]);
  assert.equal(weeks.length, 6);
  assert.deepEqual(weeks[0].slice(0, 6), [null, null, null, null, null, null]);
  assert.deepEqual(weeks[0][6], { date: "2026-11-01", day: 1, daily: null });
  const all = weeks.flat().filter(Boolean);
  assert.equal(all.length, 30);
  assert.equal(all[27].daily, daily);
  assert.ok(weeks.every((week) => week.length === 7));
  assert.equal(weeks[5][0].date, "2026-11-30");
  assert.deepEqual(weeks[5].slice(1), [null, null, null, null, null, null]);
});

test("a leap February has 29 days; one that starts on Monday has no leading blank", () => {
  const weeks = monthWeeks("2028-02", []);
  assert.equal(weeks.flat().filter(Boolean).length, 29);
  assert.equal(monthWeeks("2027-02", [])[0][0].day, 1);
});
