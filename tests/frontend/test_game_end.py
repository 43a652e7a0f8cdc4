"""The end of a game is a moment, in a real browser on a desktop and on a phone: the result
comes into view and takes the focus, with the stats screen and a share text that says
"rank N of M" and, for a game not won, how far it got. The screenshots go to
SCREENSHOTS_DIR (`scripts/dev.py screenshots`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, make_player
from tests.frontend.helpers import (
    finished_games,
    fits_the_width,
    hook_action,
    open_play,
    sign_in,
    start,
)
from tests.frontend.page_support import BROWSER_TEST

pytestmark = BROWSER_TEST


@pytest.mark.parametrize(("viewport", "name"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_a_resigned_games_result_comes_into_view_with_its_stats_and_share_text(
    asgi_server: Server,
    browser: Any,
    daily: Daily,
    screenshots_dir: Path,
    viewport: dict[str, int],
    name: str,
) -> None:
    finished_games(daily, {"early": 2})  # someone on the board already: "of 2"
    make_player("gil")
    page = browser.new_context(viewport=viewport, reduced_motion="reduce").new_page()
    sign_in(page, asgi_server.url, "gil", f"/play/{daily.challenge_id}/")
    open_play(page, asgi_server.url, daily.challenge_id)
    start(page)
    for action in daily.solution[:6]:
        hook_action(page, action)
    page.locator("#undo").click()
    expect(page.locator("#actions")).to_have_text("7")
    page.locator("#resign").click()
    page.locator("#resign").click()  # "Really resign?"

    result = page.locator("#result")
    expect(result).to_be_in_viewport()
    expect(page.locator("#result-title")).to_be_focused()
    expect(result).to_contain_text("You resigned.")
    # The status line says how the game ended, not the last action's words.
    expect(page.locator("#status")).to_contain_text("You resigned. Score")
    expect(result.locator(".parts")).to_contain_text(re.compile(r"Progress\s*\d/8 runs home"))
    expect(result.locator(".parts")).to_contain_text(re.compile(r"Rank\s*\d of 2"))
    stats = page.locator("#result-stats")
    expect(stats.locator(".stats-numbers")).to_contain_text("1Played")
    expect(stats.locator(".stats-numbers")).to_contain_text("0Win %")
    expect(stats.locator(".stats-bars li.mine")).to_have_count(1)
    share = page.locator("#share")
    expect(share).to_have_value(re.compile(r"rank \d of 2"))
    expect(share).to_have_value(re.compile(r"[🟧⬛]{10} \d+/44 cards turned up"))
    fits_the_width(page)
    result.scroll_into_view_if_needed()
    result.screenshot(path=str(screenshots_dir / f"result-{name}.png"))
