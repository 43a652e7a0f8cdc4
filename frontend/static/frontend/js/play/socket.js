// The play socket (ws/attempts/<id>/play/, docs/api.md): the attempt's batches over the
// WebSocket the page holds, answered with the status and body POST actions/ would give.
// While it is not open the batches go over HTTP instead (actions.js); either way a lost
// answer is asked again with the very same batch at the very same offset, which the server
// answers as the first time: nothing is lost or applied twice.
import { NetworkError } from "../api.js";

// Reconnection after a drop: quick at first (a batch may be waiting), then backing off.
export const RECONNECT_MS = [150, 400, 1000, 2000, 5000];
// Closed on purpose by the server: a bad frame, not signed in, not this player's attempt.
export const NO_RETRY_CODES = new Set([4400, 4401, 4404]);

export function playSocketUrl(location, attemptId) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws/attempts/${attemptId}/play/`;
}

// A socket's answer as api() resolves an HTTP one: {ok, status, data}. A 5xx (503
// unavailable: the database did not answer) is a lost connection: ask again.
export function answerOf(message) {
  if (message.status >= 500) throw new NetworkError(`socket answer ${message.status}`);
  return { ok: message.status >= 200 && message.status < 300, status: message.status, data: message.body };
}

// makeSocket(url) -> a WebSocket; setTimer/clearTimer: window's (unit tests pass fakes).
export class PlaySocket {
  constructor(url, { makeSocket = (u) => new WebSocket(u), setTimer = (f, ms) => window.setTimeout(f, ms), clearTimer = (t) => window.clearTimeout(t), onState = () => {} } = {}) {
    Object.assign(this, { url, makeSocket, setTimer, clearTimer, onState });
    this.socket = null;
    this.ready = false; // the server's "ready" came: batches may go
    this.pending = new Map(); // id -> {resolve, reject}
    this.nextId = 1;
    this.failures = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.open();
  }

  // Whether a batch sent now goes over the socket.
  get usable() {
    return this.ready && this.socket && this.socket.readyState === 1;
  }

  open() {
    this.ready = false;
    const socket = this.makeSocket(this.url);
    this.socket = socket;
    socket.addEventListener("message", (event) => this.received(event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event.code));
  }

  received(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.type === "ready") {
      this.ready = true;
      this.failures = 0;
      this.onState("open");
    } else if (message.type === "answer") {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      try {
        waiting.resolve(answerOf(message));
      } catch (error) {
        waiting.reject(error);
      }
    }
  }

  closed(socket, code) {
    if (socket !== this.socket) return;
    this.ready = false;
    // Every batch in flight is asked again by its sender (actions.js), on whichever
    // transport is up by then.
    for (const waiting of this.pending.values()) waiting.reject(new NetworkError(`socket closed ${code}`));
    this.pending.clear();
    if (this.stopped || NO_RETRY_CODES.has(code)) {
      this.onState("closed");
      return;
    }
    const delay = RECONNECT_MS[Math.min(this.failures, RECONNECT_MS.length - 1)];
    this.failures += 1;
    this.onState("retrying", delay);
    this.retryTimer = this.setTimer(() => this.open(), delay);
  }

  // One batch {offset, actions}: resolves to the answer ({ok, status, data}); rejects with
  // NetworkError when the socket drops before the answer.
  request(body) {
    if (!this.usable) return Promise.reject(new NetworkError("socket not open"));
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ type: "actions", id, ...body }));
    });
  }

  close() {
    this.stopped = true;
    this.clearTimer(this.retryTimer);
    if (this.socket) this.socket.close();
  }
}
