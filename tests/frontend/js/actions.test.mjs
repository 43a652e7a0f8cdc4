// play/actions.js: a played batch is retried, never lost or doubled; a throttled post waits;
// the server's own refusals (a JSON 503 included) are answers, not retried.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { api, NetworkError } from "../../../frontend/static/frontend/js/api.js";
import {
  fetchAttempt,
  MAX_RETRY_MS,
  postBatch,
  untilAnswered,
} from "../../../frontend/static/frontend/js/play/actions.js";

// A fake server for `api`: each call takes the next scripted outcome (an answer, or
// "lost" for a lost connection), and every request is recorded.
function fakeApi(script) {
  const calls = [];
  const call = async (method, path, body) => {
    calls.push({ method, path, body: JSON.parse(JSON.stringify(body ?? null)) });
    const next = script.shift();
    if (next === "lost") throw new NetworkError("lost");
    return next;
  };
  return { call, calls };
}

function recorder() {
  const waits = [];
  const events = [];
  return {
    waits,
    events,
    sleep: async (ms) => { waits.push(ms); },
    onLost: () => events.push("lost"),
    onThrottled: (seconds) => events.push(`throttled ${seconds}`),
  };
}

const applied = { ok: true, status: 200, data: { offset: 5, action_count: 5 } };

test("a lost connection retries the very same batch at the same offset, with backoff", async () => {
  const server = fakeApi(["lost", "lost", "lost", applied]);
  const r = recorder();
  const answer = await postBatch({ api: server.call, ...r, attemptId: 9, offset: 4, actions: ["t1-t2"] });
  assert.equal(answer, applied);
  assert.equal(server.calls.length, 4);
  for (const c of server.calls) {
    assert.deepEqual(c, { method: "POST", path: "attempts/9/actions/", body: { offset: 4, actions: ["t1-t2"] } });
  }
  assert.deepEqual(r.waits, [400, 800, 1600]);
  assert.deepEqual(r.events, ["lost", "lost", "lost"]);
});

test("the wait between retries stops growing at 8 s", async () => {
  const server = fakeApi([...Array(8).fill("lost"), applied]);
  const r = recorder();
  await untilAnswered(() => server.call("GET", "attempts/9/"), r);
  assert.deepEqual(r.waits, [400, 800, 1600, 3200, 6400, 8000, 8000, 8000]);
  assert.equal(Math.max(...r.waits), MAX_RETRY_MS);
});

test("a 429 waits the seconds the server names, then posts the same batch again", async () => {
  const throttled = { ok: false, status: 429, data: { error: { code: "throttled", message: "Slow down.", details: { wait: 2.5 } } } };
  const server = fakeApi([throttled, applied]);
  const r = recorder();
  const answer = await postBatch({ api: server.call, ...r, attemptId: 9, offset: 4, actions: ["deal"] });
  assert.equal(answer, applied);
  assert.deepEqual(r.events, ["throttled 2.5"]);
  assert.deepEqual(r.waits, [2500]);
  assert.deepEqual(server.calls[0].body, server.calls[1].body);
});

test("a stale offset or a refused action is the answer: nothing is posted again", async () => {
  for (const status of [409, 400]) {
    const refusal = { ok: false, status, data: { error: { code: "x", message: "No.", details: null } } };
    const server = fakeApi([refusal]);
    const r = recorder();
    assert.equal(await postBatch({ api: server.call, ...r, attemptId: 9, offset: 4, actions: ["t1-t2"] }), refusal);
    assert.equal(server.calls.length, 1);
    assert.deepEqual(r.waits, []);
  }
});

test("an error that is not a lost connection is not retried", async () => {
  const r = recorder();
  let calls = 0;
  const broken = async () => { calls += 1; throw new TypeError("a bug"); };
  await assert.rejects(untilAnswered(broken, r), TypeError);
  assert.equal(calls, 1);
});

test("reloading the attempt asks again after a lost connection", async () => {
  const detail = { ok: true, status: 200, data: { id: 9 } };
  const server = fakeApi(["lost", detail]);
  const r = recorder();
  assert.equal(await fetchAttempt({ api: server.call, ...r, attemptId: 9 }), detail);
  assert.deepEqual(server.calls.map((c) => `${c.method} ${c.path}`), ["GET attempts/9/", "GET attempts/9/"]);
  assert.deepEqual(r.events, ["lost"]);
});

// Through the real api.js: what a proxy's 503 and the server's JSON 503 each lead to.
afterEach(() => {
  delete globalThis.fetch;
  delete globalThis.document;
});

function httpScript(...answers) {
  const seen = [];
  globalThis.document = { cookie: "csrftoken=t" };
  globalThis.fetch = async (url, init) => {
    seen.push(init.body);
    const [status, body] = answers.shift();
    const json = typeof body !== "string";
    return new Response(json ? JSON.stringify(body) : body, {
      status, headers: { "Content-Type": json ? "application/json" : "text/html" },
    });
  };
  return seen;
}

test("over HTTP: a proxy's 503 page is retried, the server's JSON 503 is answered", async () => {
  const seen = httpScript(
    [503, "<html>Service Unavailable</html>"],
    [503, { error: { code: "hints_busy", message: "Ask again shortly.", details: null } }],
  );
  const r = recorder();
  const answer = await postBatch({ api, ...r, attemptId: 3, offset: 0, actions: ["deal"] });
  assert.equal(answer.status, 503);
  assert.equal(answer.data.error.message, "Ask again shortly.");
  assert.deepEqual(r.events, ["lost"]);
  assert.equal(seen.length, 2);
  assert.equal(seen[0], seen[1]);
});
