// The race rooms page: the public rooms taking seats (live), and a form to open one. From
// the rooms API (GET/POST rooms/) and the list's socket (ws/rooms/).
import { api, el, errorMessage, me, VARIANT_NAMES } from "./api.js";

const $ = (id) => document.getElementById(id);

function say(text, kind = "info") {
  $("rooms-status").textContent = text;
  $("rooms-status").dataset.kind = kind;
}

function drawList(rooms) {
  const body = $("room-list").querySelector("tbody");
  body.replaceChildren();
  if (!rooms.length) {
    body.append(el("tr", {}, el("td", { colspan: "5", text: "No public room is taking seats: open one." })));
    return;
  }
  for (const room of rooms) {
    body.append(el("tr", { "data-code": room.code },
      el("td", { text: room.host }),
      el("td", { text: VARIANT_NAMES[room.variant] || room.variant }),
      el("td", { text: `${room.taken} / ${room.seats}` }),
      el("td", { text: `${room.time_limit_minutes} min` }),
      el("td", {}, el("a", { href: `/rooms/${room.code}/`, text: "Open" }))));
  }
}

async function showList() {
  const answer = await api("GET", "rooms/");
  drawList(answer.ok ? answer.data : []);
}

// The list live (ws/rooms/): the server sends it on connect and after every change to a
// public room. Reconnects with a growing delay; pings to keep the socket open.
const LIVE_STATES = { connecting: "Live: connecting…", open: "Live", retrying: "Live: reconnecting…" };
const PING_EVERY_MS = 20000;

function followList(attempt = 0) {
  const state = $("rooms-live");
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${window.location.host}/ws/rooms/`);
  let ping = null;
  state.dataset.state = "connecting";
  state.textContent = LIVE_STATES.connecting;
  socket.addEventListener("open", () => {
    attempt = 0;
    state.dataset.state = "open";
    state.textContent = LIVE_STATES.open;
    ping = window.setInterval(() => socket.send(JSON.stringify({ type: "ping" })), PING_EVERY_MS);
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "rooms") drawList(message.rooms);
  });
  socket.addEventListener("close", () => {
    window.clearInterval(ping);
    const delay = Math.min(15000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    state.dataset.state = "retrying";
    state.textContent = LIVE_STATES.retrying;
    window.setTimeout(() => followList(attempt + 1), delay);
  });
}

$("room-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { user } = await me();
  if (!user) {
    window.location.href = `/login/?next=${encodeURIComponent("/rooms/")}`;
    return;
  }
  const body = {
    variant: $("room-variant").value,
    seats: Number($("room-seats").value),
    time_limit_minutes: Number($("room-minutes").value),
    public: $("room-public").checked,
  };
  try {
    const answer = await api("POST", "rooms/", body);
    if (answer.ok) window.location.href = `/rooms/${answer.data.code}/`;
    else say(errorMessage(answer), "error");
  } catch {
    say("No connection: the room was not opened. Try again.", "error");
  }
});

showList().finally(() => {
  $("rooms").dataset.ready = "true";
  followList();
});
