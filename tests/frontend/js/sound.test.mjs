// play/sound.js: which effect an answer gets, and that sound stays off until turned on.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SOUND_KEY, Sounds, soundOf } from "../../../frontend/static/frontend/js/play/sound.js";

test("each answer's effect: the win over a run home over a deal over a move; a refusal", () => {
  assert.equal(soundOf({ won: true }, { home: 1, dealt: false }), "won");
  assert.equal(soundOf({ won: false }, { home: 1, dealt: true }), "home");
  assert.equal(soundOf({ won: false }, { dealt: true }), "deal");
  assert.equal(soundOf({ won: false }), "move");
  assert.equal(soundOf(null), "refused");
});

test("off by default and until turned on; the choice is kept", () => {
  const kept = new Map();
  const storage = { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v) };
  const sounds = new Sounds(storage);
  assert.equal(sounds.on, false);
  sounds.play("move"); // no AudioContext is made while off (none exists here: it would throw)
  sounds.on = true;
  assert.equal(kept.get(SOUND_KEY), "on");
  assert.equal(new Sounds(storage).on, true);
  sounds.on = false;
  assert.equal(new Sounds(storage).on, false);
});
