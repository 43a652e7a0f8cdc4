// The reminders on a player's own page: send them to this browser or not (a Web Push
// subscription with the server's key), which kinds, quiet hours in the player's time zone.
// The server sends them (never this page); the service worker shows them.
import { api, errorMessage, me } from "../api.js";

const section = document.getElementById("reminders");
const form = document.getElementById("reminders-form");
const toggle = document.getElementById("reminders-toggle");
const state = document.getElementById("reminders-state");
const SWITCHES = ["deal_ready", "streak_ending", "league_passed", "race_starting"];

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

function fill(settings) {
  for (const name of SWITCHES) form.elements[name].checked = settings[name];
  form.elements.streak_hours.value = settings.streak_hours;
  form.elements.time_zone.value = settings.time_zone;
  form.elements.quiet_from.value = (settings.quiet_from || "").slice(0, 5);
  form.elements.quiet_until.value = (settings.quiet_until || "").slice(0, 5);
}

async function show(settings) {
  const subscription = await currentSubscription().catch(() => null);
  toggle.dataset.on = subscription ? "true" : "false";
  toggle.textContent = subscription ? "Stop reminders in this browser" : "Send reminders to this browser";
  if (!settings.public_key) {
    state.textContent = "This server sends no reminders (it has no push key).";
    toggle.disabled = true;
  } else if (!pushSupported()) {
    state.textContent = "This browser cannot receive reminders.";
    toggle.disabled = true;
  } else {
    state.textContent = subscription
      ? "Reminders come to this browser."
      : `Reminders are off in this browser${settings.subscriptions ? ` (on in ${settings.subscriptions} other)` : ""}.`;
  }
}

async function subscribe(settings) {
  if ((await Notification.requestPermission()) !== "granted") {
    state.textContent = "Notifications are blocked for this site: allow them in the browser's settings.";
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(settings.public_key),
  });
  const answer = await api("POST", "reminders/subscriptions/", subscription.toJSON());
  if (!answer.ok) {
    await subscription.unsubscribe();
    state.textContent = errorMessage(answer);
    return;
  }
  if (settings.time_zone === "UTC") {
    // The player's own time zone for the quiet hours, unless they chose one already.
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && zone !== "UTC") await api("PUT", "reminders/", { time_zone: zone });
  }
}

async function unsubscribe() {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await api("DELETE", "reminders/subscriptions/", { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

async function reload() {
  const answer = await api("GET", "reminders/");
  if (!answer.ok) return null;
  fill(answer.data);
  await show(answer.data);
  return answer.data;
}

async function start() {
  const who = await me();
  if (!who.authenticated || who.user.username !== section.closest("[data-username]").dataset.username) return;
  let settings = await reload();
  if (!settings) return;
  section.hidden = false;
  toggle.onclick = async () => {
    toggle.disabled = true;
    try {
      if (toggle.dataset.on === "true") await unsubscribe();
      else await subscribe(settings);
    } catch (error) {
      state.textContent = `Reminders not changed: ${error.message || error}`;
    }
    toggle.disabled = false;
    settings = (await reload()) || settings;
  };
  form.onsubmit = async (event) => {
    event.preventDefault();
    const body = { streak_hours: Number(form.elements.streak_hours.value), time_zone: form.elements.time_zone.value.trim() };
    for (const name of SWITCHES) body[name] = form.elements[name].checked;
    body.quiet_from = form.elements.quiet_from.value || null;
    body.quiet_until = form.elements.quiet_until.value || null;
    const answer = await api("PUT", "reminders/", body).catch(() => null);
    if (!answer) state.textContent = "No connection to the server: try again.";
    else if (!answer.ok) state.textContent = errorMessage(answer);
    else {
      fill(answer.data);
      state.textContent = "Reminders saved.";
    }
  };
}

start();
