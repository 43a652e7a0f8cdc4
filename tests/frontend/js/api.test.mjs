// api.js: which server answers are answers and which are a lost connection.
// Run: node --test tests/frontend/js/   (or python3.11 scripts/dev.py test)
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";

import { api, errorCode, errorMessage, isApiError, NetworkError, progressText } from "../../../frontend/static/frontend/js/api.js";

const requests = [];

// The next fetch answers `status` with `body` (an object is sent as JSON, a string as is).
function serverAnswers(status, body, contentType) {
  globalThis.fetch = async (url, init) => {
    requests.push({ url, init });
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const type = contentType || (typeof body === "string" ? "text/html" : "application/json");
    return new Response(status === 204 ? null : text, { status, headers: { "Content-Type": type } });
  };
}

beforeEach(() => {
  requests.length = 0;
  globalThis.document = { cookie: "sessionid=x; csrftoken=tok%2Fen" };
});

afterEach(() => {
  delete globalThis.fetch;
  delete globalThis.document;
});

const busy = { error: { code: "hints_busy", message: "Every hint search is taken: ask again shortly.", details: null } };
const noDeal = { error: { code: "no_practice_deal", message: "No verified practice deal of spider4 yet.", details: null } };

test("a 503 with the API's error body is the server's answer, in its own words", async () => {
  for (const body of [busy, noDeal]) {
    serverAnswers(503, body);
    const answer = await api("GET", "attempts/7/hint/");
    assert.equal(answer.ok, false);
    assert.equal(answer.status, 503);
    assert.equal(errorCode(answer), body.error.code);
    assert.equal(errorMessage(answer), body.error.message);
  }
});

test("a 5xx without the API's error body is a lost connection", async () => {
  const pages = [
    [502, "<html><body>Bad Gateway</body></html>"],
    [503, "<html>Service Unavailable</html>"],
    [504, ""],
    [500, "<h1>Server Error (500)</h1>"],
    [502, { detail: "upstream timed out" }], // JSON, but not the API's shape
    [503, { error: "maintenance" }],
  ];
  for (const [status, body] of pages) {
    serverAnswers(status, body);
    await assert.rejects(api("GET", "challenges/1/"), NetworkError, `HTTP ${status} ${JSON.stringify(body)}`);
  }
});

test("no answer at all is a lost connection", async () => {
  globalThis.fetch = async () => { throw new TypeError("Failed to fetch"); };
  await assert.rejects(api("POST", "attempts/1/actions/", { offset: 0, actions: ["deal"] }), NetworkError);
});

test("4xx answers resolve with the server's error, JSON or not", async () => {
  serverAnswers(400, { error: { code: "invalid", message: "Invalid input.", details: { variant: ["Not a variant."] } } });
  const invalid = await api("POST", "practice/start/", { variant: "chess" });
  assert.equal(invalid.status, 400);
  assert.equal(errorMessage(invalid), "Invalid input. (variant: Not a variant.)");

  serverAnswers(404, "<html>Not found</html>");
  const missing = await api("GET", "attempts/999/");
  assert.deepEqual([missing.ok, missing.status, missing.data], [false, 404, null]);
  assert.equal(errorMessage(missing), "The server answered 404.");
});

test("a post carries JSON, the session cookie and the CSRF token; a 204 has no data", async () => {
  serverAnswers(204, null);
  const answer = await api("POST", "auth/logout/");
  assert.deepEqual([answer.ok, answer.status, answer.data], [true, 204, null]);

  serverAnswers(201, { id: 5 });
  await api("POST", "practice/start/", { variant: "spider1" });
  const { url, init } = requests.at(-1);
  assert.equal(url, "/api/v1/practice/start/");
  assert.equal(init.credentials, "same-origin");
  assert.equal(init.headers["X-CSRFToken"], "tok/en");
  assert.equal(init.headers["Content-Type"], "application/json");
  assert.equal(init.body, '{"variant":"spider1"}');
});

test("isApiError knows the one error shape", () => {
  assert.equal(isApiError(busy), true);
  assert.equal(isApiError({ error: { message: "no code" } }), false);
  assert.equal(isApiError({ error: "text" }), false);
  assert.equal(isApiError(null), false);
  assert.equal(isApiError("<html>"), false);
});

test("a board row's progress: runs home, then cards turned up of the deal's face-down ones", () => {
  assert.equal(progressText({ won: false, runs_completed: 1, cards_turned_up: 21 }, 56), "1/8 runs · 21/56 turned up");
  assert.equal(progressText({ won: false, runs_completed: 0, cards_turned_up: 3 }), "0/8 runs · 3 turned up");
  assert.equal(progressText({ won: true, runs_completed: 8, cards_turned_up: 56 }, 56), "won");
});
