// The colour theme: light or dark as the system prefers ("auto"), or the one the player
// chose with the header's switch, kept in this browser. A classic script loaded in <head>
// (not a module): the theme is set before the page is first painted, with no flash.
(function () {
  const KEY = "astrocyte-theme";
  const CHOICES = ["auto", "light", "dark"];
  const root = document.documentElement;

  function chosen() {
    try {
      const value = window.localStorage.getItem(KEY);
      return CHOICES.includes(value) ? value : "auto";
    } catch {
      return "auto";
    }
  }

  function apply(choice) {
    if (choice === "auto") delete root.dataset.theme;
    else root.dataset.theme = choice;
  }

  apply(chosen());
  document.addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme");
    if (!button) return;
    const show = (choice) => {
      button.textContent = `Theme: ${choice}`;
      button.title = choice === "auto" ? "Light or dark as your system prefers; press to change" : "Press to change";
    };
    show(chosen());
    button.hidden = false;
    button.addEventListener("click", () => {
      const next = CHOICES[(CHOICES.indexOf(chosen()) + 1) % CHOICES.length];
      try {
        window.localStorage.setItem(KEY, next);
      } catch {
        /* storage off: for this page only */
      }
      apply(next);
      show(next);
    });
  });
})();
