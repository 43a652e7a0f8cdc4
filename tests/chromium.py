"""Which Chromium the browser tests and benches drive, and how it is started (headless, no
sandbox: the tests run as root in CI; nothing in the background that would reach the net)."""

from __future__ import annotations

import shutil

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium"
