// Sign-up and log-in forms: post to the API with the CSRF token, then go on. Sign-up shows
// the password rules and marks them as the player types (password_rules.js).
import { api, el, errorMessage, NetworkError } from "./api.js";
import { checkRules } from "./password_rules.js";

const form = document.getElementById("auth-form");
const errorBox = document.getElementById("auth-error");
const rulesList = document.getElementById("password-rules");

async function showRules() {
  let answer;
  try {
    answer = await api("GET", "auth/password-rules/");
  } catch {
    return; // the server's refusal will still name the rule
  }
  if (!answer.ok) return;
  const { rules, min_length: minLength } = answer.data;
  const draw = () => {
    rulesList.replaceChildren(...checkRules(rules, minLength, form.password.value, form.username.value).map(
      ({ text, met }) => el("li", { class: met === null ? "rule" : met ? "rule met" : "rule unmet",
        text: `${met === null ? "•" : met ? "✓" : "✗"} ${text}${met === null ? " (checked when you sign up)" : ""}` })));
  };
  form.password.addEventListener("input", draw);
  form.username.addEventListener("input", draw);
  draw();
  rulesList.hidden = false;
}

if (rulesList) showRules();

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
