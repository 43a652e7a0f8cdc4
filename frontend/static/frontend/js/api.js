// The one door to the HTTP API: JSON in and out, the session cookie and the CSRF token.
// A network failure, or a 5xx without the API's JSON error body, throws NetworkError; any
// other HTTP answer resolves to {ok, status, data}.

export class NetworkError extends Error {}

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET") {
    headers["X-CSRFToken"] = csrfToken();
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(`/api/v1/${path}`, init);
  } catch (error) {
    throw new NetworkError(String(error));
  }
  let data = null;
  try {
    data = response.status === 204 ? null : await response.json();
  } catch {
    data = null; // not JSON: a proxy's error page, or a connection cut mid-answer
  }
  // A 5xx is an answer only when it carries the API's own error body (503 hints_busy or
  // no_practice_deal: the server's words are shown). Any other 5xx (a proxy's 502 page, a
  // server that crashed) is a lost connection, like a network failure.
  if (response.status >= 500 && !isApiError(data)) {
    throw new NetworkError(`HTTP ${response.status}`);
  }
  return { ok: response.ok, status: response.status, data };
}

// The API's one error shape: {"error": {"code", "message", "details"}}.
export function isApiError(data) {
  const error = data && typeof data === "object" ? data.error : null;
  return Boolean(error && typeof error === "object" && typeof error.code === "string");
}

export function errorMessage(answer) {
  const error = answer && answer.data && answer.data.error;
  if (!error) return `The server answered ${answer ? answer.status : "nothing"}.`;
  let text = error.message || error.code;
  const details = error.details;
  if (details && typeof details === "object" && !Array.isArray(details) && error.code === "invalid") {
    const parts = Object.entries(details).map(([field, problems]) =>
      `${field}: ${Array.isArray(problems) ? problems.join(" ") : problems}`);
    if (parts.length) text += ` (${parts.join("; ")})`;
  }
  return text;
}

export function errorCode(answer) {
  return answer && answer.data && answer.data.error ? answer.data.error.code : null;
}

let mePromise = null;
export function me() {
  mePromise = mePromise || api("GET", "auth/me/").then((a) => (a.ok ? a.data : { authenticated: false, user: null }));
  return mePromise;
}

// A board row's progress, what ranks a game not won before its score (docs/rules.md): runs
// home, then the deal's face-down cards turned up, of `faceDown` (the challenge's
// face_down_dealt) when it is known.
export function progressText(row, faceDown = null) {
  if (row.won) return "won";
  const turned = row.cards_turned_up ?? 0;
  return `${row.runs_completed}/8 runs · ${faceDown ? `${turned}/${faceDown}` : turned} turned up`;
}

export function formatSeconds(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

export const VARIANT_NAMES = {
  astrocyte: "Astrocyte",
  spider1: "Spider (1 suit)",
  spider2: "Spider (2 suits)",
  spider4: "Spider (4 suits)",
};

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}
