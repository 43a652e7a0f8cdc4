"""The ratings in the browser: the rating board page, and the rating in the play page's result
panel (before the day is rated: the rating now, and that it updates when the day closes)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, Daily, Server, close_connection, make_player
from tests.frontend.helpers import click_action, open_play, sign_in, start
from tests.frontend.page_support import BROWSER_TEST, page_errors

pytestmark = BROWSER_TEST


def three_rated_days(variant: str, names: list[str]) -> None:
    """Three closed dailies of ``variant``, the players finishing in the order of ``names``,
    rated by the day-close job's service."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from leaderboards.ratings.services import ratings_rate_closed_days
    from tests.factories import make_challenge
    from tests.leaderboards.conftest import make_attempt

    players = [get_user_model().objects.get(username=name) for name in names]
    for days_ago in (3, 2, 1):
        challenge = make_challenge(timezone.now().date() - dt.timedelta(days=days_ago), variant)
        for n, player in enumerate(players):
            make_attempt(challenge, player, score=400 - 10 * n)
    ratings_rate_closed_days()
    close_connection()


def test_the_rating_board_lists_the_players_and_the_result_shows_the_rating(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    for name in ("ann", "bob", "cyd"):
        make_player(name)
    three_rated_days(daily.variant, ["cyd", "ann", "bob"])
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors = page_errors(page)

    # Linked from the other boards' navigation.
    page.goto(f"{base}/leaderboards/streaks/")
    page.click(".sitenav a:has-text('Ratings')")
    page.wait_for_url(f"{base}/leaderboards/ratings/")
    page.wait_for_selector("#boardpage[data-ready='true']")
    page.locator("#variant").select_option(daily.variant)
    page.wait_for_selector("#boardpage[data-ready='true']")
    rows = page.locator("#ranking tbody tr[data-rank]")
    expect(rows).to_have_count(3)
    assert rows.locator("td:nth-child(2)").all_inner_texts() == ["cyd", "ann", "bob"]
    expect(page.locator("#ranking thead")).to_contain_text("Rated days")
    expect(rows.nth(0).locator("td:last-child")).to_have_text("3")
    # Another variant: nobody rated there.
    page.locator("#variant").select_option("astrocyte")
    expect(page.locator("#ranking tbody")).to_contain_text("Nobody has 3 rated days yet.")

    # ann plays today's daily and resigns: the result shows her rating, and that this day
    # counts once it closes.
    sign_in(page, base, "ann", f"/play/{daily.challenge_id}/")
    open_play(page, base, daily.challenge_id)
    start(page)
    click_action(page, daily.solution[0])
    page.click("#resign")
    page.click("#resign")  # "Really resign?"
    expect(page.locator("#result-body .outcome")).to_have_text("You resigned.")
    rating = page.locator("#result-rating")
    expect(rating).to_have_text(re.compile(r"^Rating -?\d+\.\d after 3 rated days\. "))
    expect(rating).to_contain_text("Your rating updates when the day closes")
    assert not errors, errors
    context.close()
