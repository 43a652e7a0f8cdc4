// play/socket.js with a fake WebSocket: batches go over the socket once the server says
// ready, answers resolve as api() resolves HTTP ones, a drop rejects what is in flight (so
// actions.js asks again with the same batch) and reconnects, and postBatch falls back to
// HTTP while the socket is not open.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NetworkError } from "../../../frontend/static/frontend/js/api.js";
import { postBatch } from "../../../frontend/static/frontend/js/play/actions.js";
import {
  answerOf,
  PlaySocket,
  playSocketUrl,
  RECONNECT_MS,
} from "../../../frontend/static/frontend/js/play/socket.js";

class FakeSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = { message: [], close: [] };
  }

  addEventListener(kind, listener) {
    this.listeners[kind].push(listener);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  // what the server does
  serverSays(message) {
    this.readyState = 1;
    for (const listener of this.listeners.message) listener({ data: JSON.stringify(message) });
  }

  drop(code = 1006) {
    this.readyState = 3;
    for (const listener of this.listeners.close) listener({ code });
  }

  close() {
    this.drop(1000);
  }
}

function harness() {
  const sockets = [];
  const timers = [];
  const socket = new PlaySocket("ws://x/ws/attempts/3/play/", {
    makeSocket: (url) => {
      const made = new FakeSocket(url);
      sockets.push(made);
      return made;
    },
    setTimer: (callback, ms) => timers.push({ callback, ms }),
    clearTimer: () => {},
  });
  return { socket, sockets, timers };
}

const ready = { type: "ready", attempt_id: 3, offset: 0 };

test("the socket's address follows the page's scheme", () => {
  assert.equal(playSocketUrl({ protocol: "https:", host: "a.b" }, 7), "wss://a.b/ws/attempts/7/play/");
  assert.equal(playSocketUrl({ protocol: "http:", host: "h:8000" }, 7), "ws://h:8000/ws/attempts/7/play/");
});

test("a batch goes only after ready and resolves to the answer of its own id", async () => {
  const { socket, sockets } = harness();
  assert.equal(socket.usable, false);
  await assert.rejects(socket.request({ offset: 0, actions: ["deal"] }), NetworkError);
  sockets[0].serverSays(ready);
  assert.equal(socket.usable, true);
  const first = socket.request({ offset: 0, actions: ["deal"] });
  const second = socket.request({ offset: 1, actions: ["undo"] });
  assert.deepEqual(sockets[0].sent, [
    { type: "actions", id: 1, offset: 0, actions: ["deal"] },
    { type: "actions", id: 2, offset: 1, actions: ["undo"] },
  ]);
  sockets[0].serverSays({ type: "answer", id: 2, status: 409, body: { error: { code: "offset_conflict" } } });
  sockets[0].serverSays({ type: "answer", id: 1, status: 200, body: { offset: 1 } });
  assert.deepEqual(await first, { ok: true, status: 200, data: { offset: 1 } });
  assert.deepEqual(await second, { ok: false, status: 409, data: { error: { code: "offset_conflict" } } });
});

test("a 503 answer is a lost connection, not a refusal", () => {
  assert.throws(() => answerOf({ status: 503, body: { error: { code: "unavailable" } } }), NetworkError);
  assert.deepEqual(answerOf({ status: 400, body: { x: 1 } }), { ok: false, status: 400, data: { x: 1 } });
});

test("a drop rejects the batch in flight and reconnects, quickly at first", async () => {
  const { socket, sockets, timers } = harness();
  sockets[0].serverSays(ready);
  const inFlight = socket.request({ offset: 0, actions: ["deal"] });
  sockets[0].drop();
  await assert.rejects(inFlight, NetworkError);
  assert.equal(socket.usable, false);
  assert.equal(timers[0].ms, RECONNECT_MS[0]);
  timers[0].callback();
  assert.equal(sockets.length, 2);
  sockets[1].drop();
  assert.equal(timers[1].ms, RECONNECT_MS[1]);
  timers[1].callback();
  sockets[2].serverSays(ready);
  assert.equal(socket.usable, true);
});

test("closed on purpose (4401, 4404, 4400) or by the page, it does not come back", () => {
  for (const code of [4400, 4401, 4404]) {
    const { sockets, timers } = harness();
    sockets[0].drop(code);
    assert.equal(timers.length, 0);
  }
  const { socket, sockets, timers } = harness();
  socket.close();
  assert.equal(sockets.length, 1);
  assert.equal(timers.length, 0);
});

test("postBatch asks again with the same batch: over the socket, then over HTTP while it is down", async () => {
  const { socket, sockets } = harness();
  sockets[0].serverSays(ready);
  const http = [];
  const api = async (method, path, body) => {
    http.push({ method, path, body });
    return { ok: true, status: 200, data: { offset: 5 } };
  };
  const waits = [];
  const sleep = async (ms) => {
    waits.push(ms);
  };
  const answer = postBatch({ api, sleep, attemptId: 3, offset: 4, actions: ["t1-t2"], socket, onLost: () => {} });
  await Promise.resolve();
  assert.deepEqual(sockets[0].sent.at(-1), { type: "actions", id: 1, offset: 4, actions: ["t1-t2"] });
  sockets[0].drop(); // the answer is lost with the socket
  assert.deepEqual(await answer, { ok: true, status: 200, data: { offset: 5 } });
  assert.deepEqual(http, [{ method: "POST", path: "attempts/3/actions/", body: { offset: 4, actions: ["t1-t2"] } }]);
  assert.equal(waits.length, 1);
});
