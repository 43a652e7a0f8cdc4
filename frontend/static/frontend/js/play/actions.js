// Talking to the server about an attempt until it answers: the retries of a lost
// connection and of a throttled post. `api` and `sleep` are passed in, so that the unit
// tests drive these with a fake server and no real waiting.
import { NetworkError } from "../api.js";

export const FIRST_RETRY_MS = 400;
export const MAX_RETRY_MS = 8000;

// Make a request until the server answers: after a lost connection (NetworkError: no
// answer, or a 5xx that is not the API's own) call onLost, wait 0.4 s doubling up to 8 s,
// and make the very same request again. Resolves to the answer, whatever its status.
export async function untilAnswered(request, { sleep, onLost = () => {} }) {
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      onLost();
      await sleep(delay);
    }
  }
}

// The seconds a 429 asks to wait (details.wait), at least a moment.
export function throttleSeconds(answer) {
  const error = answer.data && answer.data.error;
  const details = (error && error.details) || {};
  return Number(details.wait) || 1;
}

// Post one batch of actions at an offset until the server decides on it. A lost
// connection retries the very same batch at the very same offset: the server answers a
// retry as it answered the first post, so an action whose answer was lost is neither lost
// nor doubled. A 429 waits the seconds it names (onThrottled(seconds) first), then posts
// again. Resolves to the deciding answer: 200 (applied), 409 (the offset is stale) or a
// refusal with the server's words (400, a JSON 5xx …). `socket` (socket.js): each try goes
// over the play socket when it is open, else over HTTP; the server answers both alike.
export async function postBatch({ api, sleep, attemptId, offset, actions, onLost, onThrottled = () => {}, socket = null }) {
  const body = { offset, actions };
  const post = () => (socket && socket.usable
    ? socket.request(body)
    : api("POST", `attempts/${attemptId}/actions/`, body));
  for (;;) {
    const answer = await untilAnswered(post, { sleep, onLost });
    if (answer.status !== 429) return answer;
    const seconds = throttleSeconds(answer);
    onThrottled(seconds);
    await sleep(seconds * 1000);
  }
}

// The attempt as the server has it now (GET attempts/<id>/), asked until it answers.
export function fetchAttempt({ api, sleep, attemptId, onLost }) {
  return untilAnswered(() => api("GET", `attempts/${attemptId}/`), { sleep, onLost });
}
