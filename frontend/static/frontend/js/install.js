// The installable web app: register the service worker (frontend/app_shell.py) whose scope
// is the whole site. Without service workers (an old browser, a private window in some)
// the site works as before, from the network.
const worker = document.body.dataset.serviceWorker;
if (worker && "serviceWorker" in navigator) {
  navigator.serviceWorker.register(worker, { scope: "/" }).catch((error) => {
    console.warn("service worker not registered:", error);
  });
}
