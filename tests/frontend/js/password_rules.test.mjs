// password_rules.js: the sign-up form's rules, marked as the player types.
import assert from "node:assert/strict";
import { test } from "node:test";

import { checkRules } from "../../../frontend/static/frontend/js/password_rules.js";

const RULES = [
  "Your password can’t be too similar to your other personal information.",
  "Your password must contain at least 8 characters.",
  "Your password can’t be a commonly used password.",
  "Your password can’t be entirely numeric.",
];

test("each rule the page can tell is marked met or not; the rest is the server's", () => {
  const marks = (password, username = "nova") => checkRules(RULES, 8, password, username).map((r) => r.met);
  assert.deepEqual(marks(""), [false, false, null, false]);
  assert.deepEqual(marks("1234"), [true, false, null, false]);
  assert.deepEqual(marks("12345678"), [true, true, null, false]);
  assert.deepEqual(marks("nova-2026-x"), [false, true, null, true]);
  assert.deepEqual(marks("x-Long-pass-9"), [true, true, null, true]);
  assert.equal(checkRules(RULES, 8, "a", "b")[2].text, RULES[2]);
});
