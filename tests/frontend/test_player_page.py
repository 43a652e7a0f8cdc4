"""The player's page in the browser: the rating drawn along the rated days, the calendar of
the days played, best ranks and replays; and a player hiding their page, after which another
player sees the page of a name nobody has."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, Server, close_connection, make_player
from tests.frontend.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def three_rated_days() -> None:
    from django.utils import timezone

    from leaderboards.ratings.services import ratings_rate_closed_days
    from tests.factories import make_challenge
    from tests.leaderboards.conftest import make_attempt

    ann, bea = make_player("ann"), make_player("bea")
    today = timezone.now().date()
    for n, (ann_score, bea_score) in enumerate([(300, 200), (100, 400), (500, 100)]):
        challenge = make_challenge(today - dt.timedelta(days=3 - n))
        make_attempt(challenge, ann, score=ann_score, won=ann_score == 500)
        make_attempt(challenge, bea, score=bea_score)
    ratings_rate_closed_days()
    close_connection()


def test_the_page_draws_ratings_and_days_and_its_owner_can_hide_it(
    asgi_server: Server, browser: Any, transactional_db: Any
) -> None:
    base = asgi_server.url
    three_rated_days()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{base}/players/ann/")
    page.wait_for_selector("#profile[data-ready='true']")
    rating = page.locator("#ratings figure[data-variant='astrocyte']")
    shown = re.compile(r"Astrocyte: -?\d+\.\d after 3 rated days \([+\u2212]")  # (+1.2 on …)
    expect(rating).to_contain_text(shown)
    expect(rating.locator("svg circle")).to_have_count(3)
    expect(page.locator("#calendar rect.day.won")).to_have_count(1)
    expect(page.locator("#calendar rect.day.played")).to_have_count(2)
    expect(page.locator("#calendar")).to_contain_text("3 days played in the last year; 1 won.")
    expect(page.locator("#best-ranks tbody tr")).to_have_count(3)
    expect(page.locator("#best-ranks tbody tr").first).to_contain_text(re.compile(r"1\s*2$"))
    expect(page.locator("#replays a")).to_have_count(3)
    expect(page.locator("#privacy")).to_be_hidden()  # not ann's own page

    sign_in(page, base, "ann", "/players/ann/")
    page.wait_for_selector("#profile[data-ready='true']")
    expect(page.locator("#privacy")).to_be_visible()
    page.check("#hide-page")
    expect(page.locator("#privacy-note")).to_contain_text("Hidden")
    page.reload()
    page.wait_for_selector("#profile[data-ready='true']")
    expect(page.locator("#hide-page")).to_be_checked()  # stored, and ann still sees her page
    expect(page.locator("#stats")).to_contain_text(re.compile(r"Played\s*3"))

    other = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(other, base, "bea", "/players/ann/")
    other.wait_for_selector("#profile[data-ready='true']")
    expect(other.locator("#status")).to_have_text("No player is called ann.")
    expect(other.locator("#ratings svg")).to_have_count(0)
    other.goto(f"{base}/players/nobody/")
    expect(other.locator("#status")).to_have_text("No player is called nobody.")
    context.close()
