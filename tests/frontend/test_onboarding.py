"""A newcomer's first minutes in a real browser: the sign-up form shows the password rules as
it checks them, and an invite link opened signed out names its league and signs up and joins
in one go."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.frontend.conftest import PHONE, Server, close_connection, make_player
from tests.frontend.page_support import BROWSER_TEST

pytestmark = BROWSER_TEST


def test_an_invite_opened_signed_out_signs_up_and_joins_in_one_go(
    asgi_server: Server, browser: Any
) -> None:
    from leaderboards.leagues.services import league_create
    from leaderboards.models import LeagueMember

    base = asgi_server.url
    league = league_create(owner=make_player("olga"), name="Night owls")
    close_connection()

    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{base}/leagues/join/{league.invite_code}/")
    page.wait_for_selector("#leaguepage[data-ready='true']")
    expect(page.locator("#join-text")).to_contain_text("“Night owls” by olga (1 member)")
    page.click("#signup-join")
    page.wait_for_url(re.compile(r"/signup/"))

    # The rules, marked as they are typed: too short first, then met; the server's own
    # check (a common password) named when it refuses.
    rules = page.locator("#password-rules li")
    expect(rules.filter(has_text="at least 8 characters")).to_contain_text("✗")
    page.fill("#username", "newt")
    page.fill("#password", "password")
    expect(rules.filter(has_text="at least 8 characters")).to_contain_text("✓")
    expect(rules.filter(has_text="commonly used")).to_contain_text("checked when you sign up")
    page.click("#auth-form button")
    expect(page.locator("#auth-error")).to_contain_text("too common")
    page.fill("#password", "x-Long-pass-9")
    page.click("#auth-form button")

    page.wait_for_url(re.compile(rf"/leagues/{league.pk}/$"))
    expect(page.locator("#league-title")).to_have_text("Night owls")
    assert LeagueMember.objects.filter(league=league, player__username="newt").exists()
    close_connection()
