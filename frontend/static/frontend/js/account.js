// The header: who is signed in, with a log-out button.
import { api, el, me } from "./api.js";

const nav = document.getElementById("account");
me().then((who) => {
  if (!who.authenticated) return;
  const logout = el("button", { type: "button", class: "link", text: "Log out" });
  logout.addEventListener("click", async () => {
    await api("POST", "auth/logout/");
    window.location.reload();
  });
  nav.replaceChildren(el("span", { class: "who", text: `Signed in as ${who.user.username}` }), logout);
});
