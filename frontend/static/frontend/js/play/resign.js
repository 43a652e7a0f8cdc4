// The Resign button of a game (the play page, a race room): two presses within 4 s
// ("Really resign?"), then the resignation is posted. `refused(answer)` says what to do
// when the server does not take it; a lost connection is said on the page.
import { api } from "../api.js";

export const RESIGN_CONFIRM_MS = 4000;

export function attachResign(button, game, refused) {
  let armed = null;
  button.addEventListener("click", async () => {
    if (!armed) {
      button.textContent = "Really resign?";
      armed = window.setTimeout(() => {
        armed = null;
        button.textContent = "Resign";
      }, RESIGN_CONFIRM_MS);
      return;
    }
    window.clearTimeout(armed);
    armed = null;
    button.textContent = "Resign";
    try {
      const answer = await api("POST", `attempts/${game.S.attempt.id}/resign/`);
      if (answer.ok) game.adoptAttempt(answer.data);
      else await refused(answer);
    } catch {
      game.say("No connection: the resignation was not sent. Try again.", "error");
    }
    game.render();
  });
}
