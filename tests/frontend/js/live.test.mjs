// live.js: the players' list kept from the snapshot, board and progress pushes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { PlayingSet } from "../../../frontend/static/frontend/js/live.js";

const row = (attempt_id, extra = {}) => ({
  attempt_id, username: `p${attempt_id}`, runs_completed: 0, action_count: 1, deals_left: 5,
  finished: false, ...extra,
});

function watching() {
  const playing = new PlayingSet();
  playing.apply({ type: "snapshot", playing: [row(1), row(2)], counts: { playing: 2 } });
  return playing;
}

test("a progress push updates, adds and removes several players at once", () => {
  const playing = watching();
  playing.apply({
    type: "progress",
    players: [row(1, { action_count: 40 }), row(2, { finished: true }), row(3)],
    counts: { playing: 2 },
  });
  assert.deepEqual(playing.list().map((r) => [r.attempt_id, r.action_count]), [[1, 40], [3, 1]]);
  assert.equal(playing.count, 2);
});

test("a finish counted by the board first is not taken off the count twice", () => {
  const playing = watching();
  playing.apply({ type: "board", voided: null, counts: { playing: 1 }, top: [] });
  playing.apply({ type: "progress", players: [row(2, { finished: true })], counts: { playing: 1 } });
  assert.equal(playing.count, 1);
  assert.deepEqual(playing.list().map((r) => r.attempt_id), [1]);
});
