// The live feed of one challenge (ws/challenges/<id>/): a snapshot on connect, then
// `board` and `progress` pushes. Reconnects with exponential backoff and keeps a ping going.

const PING_EVERY_MS = 20000;
const NO_RETRY_CODES = new Set([4400, 4404]);

export function connectLive(challengeId, { onMessage, onState }) {
  let socket = null;
  let attempt = 0;
  let pingTimer = null;
  let retryTimer = null;
  let stopped = false;

  function open() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/challenges/${challengeId}/`);
    onState("connecting");
    socket.addEventListener("open", () => {
      attempt = 0;
      onState("open");
      pingTimer = window.setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
      }, PING_EVERY_MS);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type !== "pong") onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      window.clearInterval(pingTimer);
      if (stopped) return;
      if (NO_RETRY_CODES.has(event.code)) {
        onState("closed");
        return;
      }
      // 0.5 s, 1 s, 2 s, … up to 15 s, with jitter so that watchers do not return in step.
      const delay = Math.min(15000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
      attempt += 1;
      onState("retrying", delay);
      retryTimer = window.setTimeout(open, delay);
    });
  }

  open();
  return {
    close() {
      stopped = true;
      window.clearTimeout(retryTimer);
      window.clearInterval(pingTimer);
      if (socket) socket.close();
    },
  };
}

// Everyone playing: attempt id -> progress row, updated by snapshot and progress pushes.
export class PlayingSet {
  constructor() {
    this.rows = new Map();
    this.counted = 0;
  }

  apply(message) {
    if (message.type === "snapshot") {
      this.rows = new Map(message.playing.map((row) => [row.attempt_id, row]));
      this.counted = message.counts.playing;
    } else if (message.type === "board") {
      // A voided attempt leaves the board and, if it was still open, the players' list.
      if (message.voided) this.rows.delete(message.voided.attempt_id);
      this.counted = message.counts.playing;
    } else if (message.type === "progress") {
      // One push per window: every player whose progress changed (the latest row each)
      // and the counts as they stand, whichever of board and progress came first.
      for (const row of message.players) {
        if (row.finished) this.rows.delete(row.attempt_id);
        else this.rows.set(row.attempt_id, row);
      }
      this.counted = message.counts.playing;
    }
  }

  get count() {
    return Math.max(this.counted, this.rows.size);
  }

  list() {
    return [...this.rows.values()];
  }
}
