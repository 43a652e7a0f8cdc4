// The header's menu on narrow screens: a disclosure button that shows and hides the site's
// links. Wide screens show the links and no button (site.css decides by the width). Without
// this script the links are simply always shown.
const header = document.querySelector("header.site");
const button = document.getElementById("menu");
const nav = document.getElementById("sitenav");

function setOpen(open) {
  button.setAttribute("aria-expanded", String(open));
  header.classList.toggle("menu-open", open);
}

if (header && button && nav) {
  header.classList.add("has-menu");
  button.hidden = false;
  button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
  header.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || button.getAttribute("aria-expanded") !== "true") return;
    setOpen(false);
    button.focus();
  });
}
