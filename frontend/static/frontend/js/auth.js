// Sign-up and log-in forms: post to the API with the CSRF token, then go on.
import { api, errorMessage, NetworkError } from "./api.js";

const form = document.getElementById("auth-form");
const errorBox = document.getElementById("auth-error");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  const mode = form.dataset.mode;
  const body = { username: form.username.value.trim(), password: form.password.value };
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    const answer = await api("POST", `auth/${mode}/`, body);
    if (answer.ok) {
      window.location.assign(form.dataset.next || "/");
      return;
    }
    errorBox.textContent = errorMessage(answer);
  } catch (error) {
    errorBox.textContent = error instanceof NetworkError
      ? "No connection to the server; try again." : String(error);
  }
  errorBox.hidden = false;
  button.disabled = false;
});
