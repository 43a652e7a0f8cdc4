"""The home page across midnight, in a real browser, on the embedded run (uvicorn with its
lifespan, no REDIS_URL): the server's clock and this process's are shifted together to a
few seconds before 00:00 UTC of DAY (tests/shifted_clock.py); the browser's clock is its own.

The countdown reaches zero up to a second early (the API's seconds_left is rounded down);
the page must then reload exactly once, after the server's date has changed, and show the
new day's deal.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, close_connection, start_server, stop_server
from tests.frontend.helpers import embedded_server_env
from tests.frontend.page_support import BROWSER_TEST
from tests.games.midnight_support import (
    DAY,
    MIDNIGHT,
    NEXT_DAY,
    at,
    daily_on,
    next_days_daily,
)
from tests.shifted_clock import shift_to, shifted_clock

pytestmark = BROWSER_TEST

SET_UP_SECONDS = 45.0  # two solver runs, the server's start, the first page load
QUIET_AFTER_SECONDS = 4.0  # a second reload would come within this


def test_the_home_page_reloads_once_when_the_servers_date_changes(
    browser: Any, tmp_path: Path
) -> None:
    shift = shift_to(at(-SET_UP_SECONDS))
    with shifted_clock(shift):
        daily_on(DAY)
        tomorrow = next_days_daily()
        close_connection()
        server = start_server(tmp_path, embedded_server_env(shift), lifespan="on")
        try:
            page = browser.new_page(viewport=DESKTOP)
            loads: list[Any] = []  # this process's (shifted) clock at each page load
            page.on("load", lambda _page: loads.append(timezone.now()))
            # Loaded at a moment whose seconds_left is rounded down by almost a second, so
            # that a countdown trusted to the second ends almost a second before midnight.
            wait_for_fraction_of_second(0.05)
            page.goto(f"{server.url}/")
            expect(page.locator("#today-message")).to_contain_text(DAY.isoformat())
            assert timezone.now() < at(-3), "set-up took too long: raise SET_UP_SECONDS"

            until_midnight = (MIDNIGHT - timezone.now()).total_seconds()
            expect(page.locator("#today-message")).to_contain_text(
                NEXT_DAY.isoformat(), timeout=(until_midnight + 5) * 1000
            )
            page.wait_for_timeout(QUIET_AFTER_SECONDS * 1000)

            assert len(loads) == 2, f"page loads at {loads}"
            assert loads[1] >= MIDNIGHT, "reloaded before the server's date changed"
            assert (loads[1] - MIDNIGHT).total_seconds() < 2.0
            play = page.get_by_role("link", name=f"Play: Spider (1 suit) of {NEXT_DAY}")
            expect(play).to_have_attribute("href", f"/play/{tomorrow.pk}/")
        finally:
            stop_server(server)


def wait_for_fraction_of_second(fraction: float) -> None:
    """Sleep until the clock reads ``fraction`` past a whole second."""
    now = timezone.now()
    time.sleep((fraction - now.microsecond / 1e6) % 1.0)
