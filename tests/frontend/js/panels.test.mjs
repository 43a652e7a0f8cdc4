// play/panels.js: the result, the share text, a hint and the live state, in words.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  hintMark,
  hintText,
  liveStateText,
  outcomeText,
  ratingText,
  resultRows,
  runsGrid,
  shareText,
  statsScreen,
  statsText,
  turnedUpGrid,
} from "../../../frontend/static/frontend/js/play/panels.js";
import { smallView } from "./views.mjs";

const won = {
  id: 4, kind: "ranked", variant: "spider1", date: "2026-11-30", won: true, end_reason: "won",
  action_count: 118, elapsed_seconds: 754, scoreTotal: 1234,
};

test("the share text is a grid of the runs, the numbers, the day's link, and no card", () => {
  assert.equal(shareText({ ...won, challenge_id: 9 }, 3, "https://play.example.org"),
    "Astrocyte Daily 2026-11-30 · Spider (1 suit)\n" +
    "🟩🟩🟩🟩🟩🟩🟩🟩 8/8 runs home · won\n" +
    "118 actions · 12:34 · score 1234 · rank 3\n" +
    "https://play.example.org/leaderboards/9/");
  const practice = { ...won, kind: "practice", date: null, won: false, end_reason: "resigned", variant: "astrocyte", runs_completed: 3 };
  assert.equal(shareText(practice, null, "https://play.example.org"),
    "Astrocyte Daily practice · Astrocyte\n🟩🟩🟩⬜⬜⬜⬜⬜ 3/8 runs home · resigned\n118 actions · 12:34 · score 1234");
  assert.doesNotMatch(shareText(won, 3), /\b[A2-9TJQK][SHDC]\b/);
  const lost = { ...won, challenge_id: 9, won: false, end_reason: "resigned", runs_completed: 1, cards_turned_up: 21, face_down_dealt: 56 };
  assert.equal(shareText(lost, 4, "", 31),
    "Astrocyte Daily 2026-11-30 · Spider (1 suit)\n" +
    "🟩⬜⬜⬜⬜⬜⬜⬜ 1/8 runs home · resigned\n" +
    "🟧🟧🟧🟧⬛⬛⬛⬛⬛⬛ 21/56 cards turned up\n" +
    "118 actions · 12:34 · score 1234 · rank 4 of 31");
  assert.equal(turnedUpGrid(0, 44), "⬛".repeat(10));
  assert.equal(turnedUpGrid(44, 44), "🟧".repeat(10));
  assert.equal(runsGrid(0), "⬜".repeat(8));
  assert.equal(runsGrid(12), "🟩".repeat(8));
});

test("the result says how the game ended", () => {
  assert.equal(outcomeText(won), "You won!");
  assert.equal(outcomeText({ won: false, end_reason: "resigned" }), "You resigned.");
  assert.equal(outcomeText({ won: false, end_reason: "day_closed" }), "The day closed.");
});

test("the score's parts are listed only when they add up to the score shown", () => {
  const parts = { total: 1234, base: 1000, actions: 118, time_penalty: 48, foundations: 8, foundation_bonus: 400, win_bonus: 0 };
  const rows = resultRows(won, parts, null);
  assert.deepEqual(rows.map(([name]) => name), [
    "Score", "Base", "Actions", "Time", "Foundations (8)", "Win bonus", "Time played", "Actions played", "Rank",
  ]);
  assert.deepEqual(rows[2], ["Actions", "−118"]);
  assert.deepEqual(rows.at(-1), ["Rank", "…"]);
  const stale = resultRows(won, { ...parts, total: 999 }, 2);
  assert.deepEqual(stale.map(([name]) => name), ["Score", "Time played", "Actions played", "Rank"]);
  assert.deepEqual(stale.at(-1), ["Rank", "2"]);
  assert.deepEqual(resultRows(won, null, 2, null, 31).at(-1), ["Rank", "2 of 31"]);
  assert.deepEqual(resultRows({ ...won, kind: "practice", race: true }, null, null).at(-1),
    ["Rank", "the race's results give the place"]);
  const lost = { ...won, won: false, runs_completed: 1, cards_turned_up: 21, face_down_dealt: 56 };
  assert.deepEqual(resultRows(lost, null, 4).at(-2), ["Progress", "1/8 runs home · 21/56 cards turned up"]);
  assert.deepEqual(resultRows({ ...won, kind: "practice" }, null, null).at(-1), ["Rank", "practice: unranked"]);
});

test("a hint is drawn on the cards it moves and said in words, then the server's sentence", () => {
  const v = smallView();
  assert.deepEqual(hintMark("t1-t2:3"), { src: "t1", dst: "t2", n: 3, action: "t1-t2:3" });
  assert.deepEqual(hintMark("deal"), { src: "stock", dst: null, n: 0, action: "deal" });
  assert.equal(hintText(v, "t1-t2:3", "It leads to a win in 40 actions."),
    "Hint: move Nine of hearts and the 2 cards on it from column 1 to column 2 (t1-t2:3). It leads to a win in 40 actions.");
  assert.equal(hintText(v, "deal", "Nothing better."), "Hint: deal. Nothing better.");
});

test("the live panel says how its connection stands", () => {
  assert.equal(liveStateText("open"), "Live");
  assert.equal(liveStateText("retrying", 2400), "Live: reconnecting in 3 s…");
  assert.equal(liveStateText("closed"), "Live updates unavailable");
});

test("the record after a ranked daily: played, won with the rate, the variant's streak", () => {
  const answer = {
    stats: { played: 3, won: 2, win_rate: 0.6667 },
    streaks: [{ variant: "spider1", current: 1, best: 2 }, { variant: "astrocyte", current: 4, best: 4 }],
  };
  assert.equal(statsText(answer, "astrocyte"), "Played 3 · Won 2 (67%) · Streak 4 days (best 4)");
  assert.equal(statsText(answer, "spider1"), "Played 3 · Won 2 (67%) · Streak 1 day (best 2)");
  assert.equal(statsText({ stats: { played: 1, won: 0, win_rate: null }, streaks: [] }, "spider1"), "Played 1 · Won 0");
  assert.equal(statsText(null, "spider1"), "");
});

test("the stats screen: played, win %, the streaks, and how the games ended with this one marked", () => {
  const answer = {
    stats: { played: 5, won: 2, win_rate: 0.4, runs_histogram: [{ runs_completed: 0, count: 2 }, { runs_completed: 3, count: 1 }, { runs_completed: 8, count: 2 }] },
    streaks: [{ variant: "spider1", current: 1, best: 2 }],
  };
  const screen = statsScreen(answer, "spider1", { won: false, runs_completed: 3 });
  assert.deepEqual(screen.numbers, [["Played", 5], ["Win %", 40], ["Current streak", 1], ["Best streak", 2]]);
  assert.equal(screen.bars.length, 9);
  assert.deepEqual(screen.bars[3], { label: "3 runs", count: 1, mine: true });
  assert.deepEqual(screen.bars[8], { label: "won", count: 2, mine: false });
  assert.equal(screen.bars.filter((bar) => bar.mine).length, 1);
  assert.equal(statsScreen(null, "spider1", {}), null);
});

test("the rating line: the day's change once rated, else the rating now and when it updates", () => {
  const message = "Your rating updates when the day closes (00:00 UTC).";
  assert.equal(ratingText({ rated: false, current: null, change: null, message }),
    `No rating yet. ${message}`);
  assert.equal(ratingText({ rated: false, current: { rating: 3.25, rated_days: 1 }, change: null, message }),
    `Rating 3.3 after 1 rated day. ${message}`);
  assert.equal(ratingText({
    rated: true, current: { rating: 4.0, rated_days: 2 }, message: "",
    change: { rating_before: 3.25, rating: 4.04, rank: 2, players: 30 },
  }), "Rating 3.3 → 4.0 (rank 2 of 30 that day)");
  assert.equal(ratingText(null), "");
});
