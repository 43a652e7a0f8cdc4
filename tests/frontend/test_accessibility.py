"""Every page passes axe-core's audit (no serious or critical violation), in the states a
player meets it: signed out and in, before and during a game, after it, on a phone, and in
both colour themes; the theme switch."""

from __future__ import annotations

from typing import Any

from tests.frontend.a11y import assert_accessible, rule_outcomes
from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, make_player
from tests.frontend.helpers import close_the_day, finished_games, open_play, sign_in, start
from tests.frontend.page_support import BROWSER_TEST

pytestmark = BROWSER_TEST

READY = {
    "/": "#challenges li",
    "/signup/": "#auth-form",
    "/login/": "#auth-form",
    "/practice/": "#play[data-ready='true']",
    "/archive/": "#archive[data-ready='true']",
    "/rules/": "main h1",
    "/leaderboards/alltime/": "#boardpage[data-ready='true']",
    "/leaderboards/streaks/": "#boardpage[data-ready='true']",
    "/leaderboards/ratings/": "#boardpage[data-ready='true']",
}


def audit(page: Any, url: str, ready: str) -> None:
    page.goto(url)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    assert_accessible(page, url)


def test_every_page_passes_the_audit_signed_out_and_in(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    ids = finished_games(daily, {"ann": None, "bob": 5})
    # Every page in both themes: the desktop in the dark one, the phone in the light one
    # (each as its system prefers: the theme follows prefers-color-scheme).
    for name, viewport, scheme in (("cat", DESKTOP, "dark"), ("dan", PHONE, "light")):
        make_player(name)
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        page = context.new_page()
        for path, ready in READY.items():
            audit(page, base + path, ready)
        audit(page, f"{base}/play/{daily.challenge_id}/", "#play[data-ready='true']")
        audit(page, f"{base}/leaderboards/{daily.challenge_id}/", "#boardpage[data-ready='true']")
        audit(page, f"{base}/players/ann/", "#profile[data-ready='true']")
        sign_in(page, base, name, f"/play/{daily.challenge_id}/")
        open_play(page, base, daily.challenge_id)
        assert_accessible(page, "the play page, study")
        start(page)
        assert_accessible(page, "the play page, playing")
        # The cards' names were checked against their text, not skipped as undecidable.
        faces = page.locator("#board .card.up[role='button']").count()
        names = rule_outcomes(page, "label-content-name-mismatch")
        assert names["passes"] >= faces >= 10 and names["violations"] == 0, names
        page.locator("#board .column[data-pile='t1'] .card").last.click()
        assert_accessible(page, "the play page, a card picked up")
        for path, ready in READY.items():
            audit(page, base + path, ready)
        context.close()
    close_the_day(daily)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    audit(page, f"{base}/replay/{ids['bob']}/", "#replay[data-ready='true']")
    audit(page, f"{base}/challenges/{daily.challenge_id}/replays/", "#replay[data-ready='true']")
    context.close()


def test_the_theme_follows_the_system_until_the_player_picks_one(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context = browser.new_context(viewport=DESKTOP, color_scheme="dark")
    page = context.new_page()
    page.goto(f"{asgi_server.url}/")
    page.wait_for_selector("#challenges li")
    background = "() => getComputedStyle(document.body).backgroundColor"
    dark = page.evaluate(background)
    switch = page.locator("#theme")
    assert switch.inner_text() == "Theme: auto"
    switch.click()
    assert switch.inner_text() == "Theme: light"
    light = page.evaluate(background)
    assert light != dark
    assert_accessible(page, "home, light chosen on a dark system")
    # kept across pages and reloads, and set before the page is drawn
    page.goto(f"{asgi_server.url}/play/{daily.challenge_id}/")
    page.wait_for_selector("#play[data-ready='true']")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "light"
    assert page.evaluate(background) == light
    assert_accessible(page, "the play page, light")
    page.locator("#theme").click()  # dark
    assert page.evaluate(background) == dark
    page.locator("#theme").click()  # auto again: the system's (dark)
    assert page.locator("#theme").inner_text() == "Theme: auto"
    assert page.evaluate("() => document.documentElement.dataset.theme") is None
    assert page.evaluate(background) == dark
    context.close()
