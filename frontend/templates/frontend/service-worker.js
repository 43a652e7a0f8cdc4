// Astrocyte Daily's service worker (frontend/app_shell.py serves it from the site's root).
// The static shell comes from the cache, so that a repeat visit draws without waiting for
// the network: a page opened before is drawn as last fetched while the network's copy
// replaces it for the next visit (a page never opened comes from the network, or is the
// offline page when there is none); the client's static files come from the cache. Pages
// carry no game data (every page asks the API for it). API answers, the admin and
// WebSockets always go to the network and are never kept: the server stays the only
// source of a position.
// It also shows the reminders the server pushes (notifications/) and opens their page.
"use strict";

const CACHE = "{{ cache_name }}";
const SHELL = {{ shell|safe }};
const OFFLINE = {{ offline|safe }};
const STATIC_PREFIX = {{ static_prefix|safe }};
const NETWORK_ONLY = {{ network_only|safe }};
const ICON = STATIC_PREFIX + "icons/icon-192.png";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll([...SHELL, OFFLINE]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name.startsWith("astrocyte-shell-") && name !== CACHE)
          .map((name) => caches.delete(name)),
      ))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (NETWORK_ONLY.some((prefix) => url.pathname.startsWith(prefix))) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.startsWith(new URL(STATIC_PREFIX, self.location.origin).pathname)) {
    event.respondWith(staticFile(request));
  }
});

async function page(event) {
  const request = event.request;
  const cache = await caches.open(CACHE);
  const fresh = fetch(request).then(async (answer) => {
    if (answer.ok && !answer.redirected && answer.type === "basic") {
      await cache.put(request, answer.clone());
    }
    return answer;
  });
  // The address whole: a page's query can change its HTML (the log-in page's `next`).
  const kept = await cache.match(request);
  if (kept) {
    event.waitUntil(fresh.catch(() => null)); // offline: the kept copy is all there is
    return kept;
  }
  try {
    return await fresh;
  } catch (error) {
    return (await cache.match(OFFLINE)) || Response.error();
  }
}

async function staticFile(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.ok) await cache.put(request, answer.clone());
  return answer;
}

// A reminder from the server: {kind, title, body, url}. Nothing about a deal's cards is
// ever in one (notifications/kinds.py).
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = message.title || "Astrocyte Daily";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: message.body || "",
      tag: message.kind || "astrocyte",
      icon: ICON,
      data: { url: message.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openPage(event.notification.data?.url || "/"));
});

// The reminder's page: in a window of the site already open (brought there and to the
// front), else in a new one.
async function openPage(path) {
  const target = new URL(path, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window" });
  const open = windows.find((client) => client.url === target) || windows[0];
  if (!open) return self.clients.openWindow(target);
  const shown = open.url === target ? open : (await open.navigate(target)) || open;
  return shown.focus().catch(() => shown);
}
