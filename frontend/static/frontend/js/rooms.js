// The race rooms page: the public rooms taking seats, and a form to open one. Everything
// comes from the rooms API (GET/POST rooms/).
import { api, el, errorMessage, me, VARIANT_NAMES } from "./api.js";

const $ = (id) => document.getElementById(id);

function say(text, kind = "info") {
  $("rooms-status").textContent = text;
  $("rooms-status").dataset.kind = kind;
}

async function showList() {
  const answer = await api("GET", "rooms/");
  const body = $("room-list").querySelector("tbody");
  body.replaceChildren();
  if (!answer.ok || !answer.data.length) {
    body.append(el("tr", {}, el("td", { colspan: "5", text: "No public room is taking seats: open one." })));
    return;
  }
  for (const room of answer.data) {
    body.append(el("tr", { "data-code": room.code },
      el("td", { text: room.host }),
      el("td", { text: VARIANT_NAMES[room.variant] || room.variant }),
      el("td", { text: `${room.taken} / ${room.seats}` }),
      el("td", { text: `${room.time_limit_minutes} min` }),
      el("td", {}, el("a", { href: `/rooms/${room.code}/`, text: "Open" }))));
  }
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

showList().finally(() => { $("rooms").dataset.ready = "true"; });
