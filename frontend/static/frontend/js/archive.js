// The archive page: a calendar month of one variant's past dailies (GET archive/), each a
// link to play that day's deal again as practice (/archive/<challenge id>/).
import { api, el, errorMessage } from "./api.js";
import { monthTitle, monthWeeks, WEEKDAYS } from "./archive/calendar.js";

const root = document.getElementById("archive");
const $ = (id) => document.getElementById(id);
let shown = null; // the server's last answer: {variant, month, previous, next, days}

function say(text, kind = "info") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

function dayCell(cell) {
  if (!cell) return el("td", { class: "blank" });
  if (!cell.daily) return el("td", {}, el("span", { class: "day", text: String(cell.day) }));
  const d = cell.daily;
  const note = `${monthTitle(cell.date.slice(0, 7))}: ${d.finished} on the board${d.difficulty ? `, ${d.difficulty}` : ""}`;
  return el("td", { class: "has-daily" },
    el("a", { href: `/archive/${d.challenge_id}/`, "data-date": cell.date },
      el("span", { class: "day", text: String(cell.day) }),
      el("span", { class: "visually-hidden", text: ` ${note}` })),
    el("span", { class: "finished", "aria-hidden": "true", text: String(d.finished) }));
}

function draw(data) {
  shown = data;
  $("month-title").textContent = monthTitle(data.month);
  $("calendar").tHead.rows[0].replaceChildren(...WEEKDAYS.map((day) => el("th", { scope: "col", text: day })));
  $("calendar").tBodies[0].replaceChildren(...monthWeeks(data.month, data.days).map((week) =>
    el("tr", {}, ...week.map(dayCell))));
  $("previous").disabled = !data.previous;
  $("next").disabled = !data.next;
  say(data.days.length
    ? `${data.days.length} past ${data.days.length === 1 ? "daily" : "dailies"} in ${monthTitle(data.month)}: pick a day to play it again.`
    : `No past daily of this variant in ${monthTitle(data.month)}.`);
  const params = new URLSearchParams({ variant: data.variant, month: data.month });
  window.history.replaceState(null, "", `?${params}`);
  root.dataset.ready = "true";
}

async function load(month) {
  root.dataset.ready = "false";
  const params = new URLSearchParams({ variant: $("variant").value });
  if (month) params.set("month", month);
  try {
    const answer = await api("GET", `archive/?${params}`);
    if (answer.ok) draw(answer.data);
    else say(errorMessage(answer), "error");
  } catch {
    say("No connection to the server. Reload to try again.", "error");
  }
}

$("variant").addEventListener("change", () => load(null));
$("previous").addEventListener("click", () => shown && shown.previous && load(shown.previous));
$("next").addEventListener("click", () => shown && shown.next && load(shown.next));

const asked = new URLSearchParams(window.location.search);
if (asked.get("variant") && [...$("variant").options].some((o) => o.value === asked.get("variant"))) {
  $("variant").value = asked.get("variant");
}
load(asked.get("month"));
