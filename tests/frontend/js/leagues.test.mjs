// The league switch of the play page's live panel: which socket, and how the rank is named.
import assert from "node:assert/strict";
import { test } from "node:test";

import { livePath } from "../../../frontend/static/frontend/js/live.js";
import { myRankLabel } from "../../../frontend/static/frontend/js/play/panels.js";

test("the day's board and a league's board are two sockets of the challenge", () => {
  assert.equal(livePath(7), "/ws/challenges/7/");
  assert.equal(livePath(7, null), "/ws/challenges/7/");
  assert.equal(livePath(7, 12), "/ws/challenges/7/leagues/12/");
});

test("a rank from a league's snapshot or push is the rank in the league", () => {
  assert.equal(myRankLabel({ type: "snapshot", league: { id: 3, name: "Friends" } }), "Your rank in the league");
  assert.equal(myRankLabel({ type: "board", league_id: 3 }), "Your rank in the league");
  assert.equal(myRankLabel({ type: "board", top: [] }), "Your rank");
});
