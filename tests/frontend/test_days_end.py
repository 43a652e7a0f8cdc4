"""The day's end reaches a page left open on a game, in a real browser: the countdown, then at
midnight the server's push (`day_closed`), the clock stopped, the game ended where it stood
and the result in view. The server's clock and this process's are shifted together to a few
seconds before 00:00 UTC of DAY (tests/shifted_clock.py); the browser's clock is its own.

Both ways of running it: embedded (the server's own beat closes the day) and, with REDIS_URL,
the full stack's channel layer (the close runs here, as a worker would, and its push reaches
the server's watchers through Redis)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import expect

from tests.frontend.conftest import (
    DESKTOP,
    close_connection,
    make_player,
    server_redis_url,
    start_server,
    stop_server,
)
from tests.frontend.helpers import attempt, embedded_server_env, sign_in, start
from tests.frontend.page_support import BROWSER_TEST
from tests.games.midnight_support import DAY, MIDNIGHT, at, daily_on, next_days_daily
from tests.shifted_clock import shift_to, shifted_clock

pytestmark = BROWSER_TEST

SET_UP_SECONDS = 55.0  # two solver runs, the server's start, sign-in, a move
CLOSE_AHEAD_SECONDS = 8.0  # the full stack's close runs this long before midnight


def full_stack_layer(redis_url: str) -> dict[str, Any]:
    """The server's channel layer (its own Redis database), for a close run in this process."""
    from django.conf import settings

    from core.live.channel_layer import prefix_for

    layer = json.loads(json.dumps(settings.CHANNEL_LAYERS))
    layer["default"]["CONFIG"]["hosts"] = [{"address": redis_url, "socket_timeout": 15}]
    layer["default"]["CONFIG"]["prefix"] = prefix_for(redis_url)
    return layer


def test_the_days_end_stops_an_open_game_and_shows_its_result(browser: Any, tmp_path: Path) -> None:
    from django.conf import settings

    from games.models import Attempt
    from games.services.attempts import attempts_close_day

    full_stack = bool(settings.REDIS_URL)
    shift = shift_to(at(-SET_UP_SECONDS))
    with shifted_clock(shift):
        today = daily_on(DAY)
        next_days_daily()
        make_player("owl")
        close_connection()
        env = embedded_server_env(shift)
        if full_stack:
            env["REDIS_URL"] = server_redis_url(settings.REDIS_URL) or ""
        server = start_server(tmp_path, env, lifespan="off" if full_stack else "on")
        try:
            page = browser.new_page(viewport=DESKTOP)
            pushed: list[str] = []
            page.on(
                "websocket",
                lambda socket: socket.on(
                    "framereceived",
                    lambda frame: pushed.append(frame if isinstance(frame, str) else ""),
                ),
            )
            sign_in(page, server.url, "owl", f"/play/{today.pk}/")
            page.wait_for_selector("#play[data-ready='true']")
            expect(page.locator("#day-left-box")).to_be_visible()
            start(page)
            first = attempt(page)["legal_actions"][0]
            assert page.evaluate("(action) => window.astrocyte.send([action])", first)
            expect(page.locator("#actions")).to_have_text("1")
            assert timezone.now() < at(-CLOSE_AHEAD_SECONDS - 1), (
                "set-up took too long: raise SET_UP_SECONDS"
            )

            until_midnight = (MIDNIGHT - timezone.now()).total_seconds()
            result = page.locator("#result")
            if full_stack:
                # A worker's close, as beat runs it, for the moment just past midnight but run
                # CLOSE_AHEAD_SECONDS before it: the page hears of the day's end from the push,
                # through the server's Redis (this process's layer pointed at it until the
                # push is out), before its own countdown ends.
                page.wait_for_timeout((until_midnight - CLOSE_AHEAD_SECONDS) * 1000)
                with override_settings(CHANNEL_LAYERS=full_stack_layer(env["REDIS_URL"])):
                    assert attempts_close_day(now=at(0.5))
                    close_connection()
                    expect(result).to_be_visible(timeout=10_000)
            expect(result).to_be_visible(timeout=(until_midnight + 30) * 1000)
            expect(result).to_contain_text("The day closed.")
            expect(page.locator("#result-title")).to_be_focused()
            expect(page.locator("#status")).to_contain_text("The day is over")
            expect(page.locator("#replays-link")).to_be_visible()
            expect(page.locator("#resign")).to_be_disabled()
            # The push: sent once the close has committed, so it may come just after the
            # page, asking on its own, has shown the result.
            deadline = time.monotonic() + 10
            while not any('"day_closed"' in frame for frame in pushed):
                assert time.monotonic() < deadline, pushed
                page.wait_for_timeout(50)  # the page's events are delivered while it waits

            # The clock shown is the one the score counted: the time of the last action.
            ended = Attempt.objects.get(player__username="owl")
            close_connection()
            assert ended.end_reason == "day_closed" and ended.action_count == 1
            seconds = int(ended.elapsed_seconds or 0)
            expect(page.locator("#clock")).to_have_text(f"{seconds // 60}:{seconds % 60:02d}")
            in_view = page.evaluate(
                "() => { const r = document.getElementById('result').getBoundingClientRect();"
                " return r.top >= 0 && r.top < window.innerHeight; }"
            )
            assert in_view, "the result is not in view"
        finally:
            stop_server(server)
