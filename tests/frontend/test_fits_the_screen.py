"""Every page fits the screen, on a phone (390 px) and on a desktop (1280 px): nothing makes
the page scroll sideways (a wide table scrolls inside its own box), and on a phone the
site's links sit behind a menu button that the keyboard and a screen reader can open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, close_connection, make_player
from tests.frontend.helpers import finished_games, fits_the_width, sign_in
from tests.frontend.page_support import BROWSER_TEST, page_errors

pytestmark = BROWSER_TEST

WIDE_DESKTOP = {"width": 1280, "height": 860}


def settled(page: Page) -> None:
    """Wait until every part of the page that loads its data says it is ready."""
    page.wait_for_load_state("load")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-ready]')]"
        ".every((element) => element.dataset.ready === 'true')"
    )


def every_page(daily: Daily) -> tuple[list[str], list[str]]:
    """The site's pages signed out and signed in (as ann, with a game, a league, a room)."""
    from leaderboards.leagues.services import league_create
    from rooms.services import room_create

    ids = finished_games(daily, {"ann": 10, "bob": None})
    ann = make_player_or_get("ann")
    league = league_create(owner=ann, name="Pals with a rather long league name")
    room = room_create(host=ann, variant="spider1", seats=4, public=True, time_limit_minutes=10)
    race = racing_room(ann, make_player_or_get("bob"))
    day = daily.challenge_id
    public = [
        "/",
        "/rules/",
        "/login/",
        "/signup/",
        "/offline/",
        "/archive/",
        f"/archive/{day}/",
        "/practice/",
        f"/leaderboards/{day}/",
        "/leaderboards/alltime/",
        "/leaderboards/streaks/",
        "/leaderboards/ratings/",
        "/players/ann/",
        f"/leagues/join/{league.invite_code}/",
        "/rooms/",
    ]
    signed_in = [
        f"/play/{day}/",
        f"/replay/{ids['ann']}/",
        f"/challenges/{day}/replays/",
        "/leagues/",
        f"/leagues/{league.pk}/",
        f"/leagues/join/{league.invite_code}/",
        "/rooms/",
        f"/rooms/{room.code}/",
        f"/rooms/{race}/",
        "/practice/",
        "/players/ann/",
    ]
    return public, signed_in


def racing_room(host: Any, other: Any) -> str:
    """A room whose race is on (started a minute ago): the board and the racers' table."""
    import datetime as dt

    from django.utils import timezone

    from games.models import Deal
    from rooms.services import room_create, room_join, room_start
    from tests.factories import verified_deal

    verified_deal("spider1", 1, pool=Deal.Pool.PRACTICE)
    room = room_create(host=host, variant="spider1", seats=2, public=True, time_limit_minutes=10)
    room_join(code=room.code, player=other)
    room_start(code=room.code, player=host, now=timezone.now() - dt.timedelta(minutes=1))
    close_connection()
    return room.code


def make_player_or_get(username: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


@pytest.mark.parametrize("viewport", [PHONE, WIDE_DESKTOP], ids=["phone", "desktop"])
def test_no_page_is_wider_than_the_screen(
    asgi_server: Server,
    browser: Any,
    daily: Daily,
    viewport: dict[str, int],
    screenshots_dir: Path,
) -> None:
    base = asgi_server.url
    public, signed_in = every_page(daily)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = page_errors(page)
    too_wide = []

    def visit_and_measure(path: str) -> None:
        page.goto(f"{base}{path}")
        settled(page)
        try:
            fits_the_width(page)
        except AssertionError as problem:
            too_wide.append(str(problem))

    for path in public:
        visit_and_measure(path)
    sign_in(page, base, "ann", "/")
    for path in signed_in:
        visit_and_measure(path)
        if path.startswith(("/rooms/", "/leagues/")) and path.count("/") == 3:
            name = f"fits-{viewport['width']}-{path.strip('/').replace('/', '-')}.png"
            page.screenshot(path=str(screenshots_dir / name), full_page=True)
    assert too_wide == [], "\n".join(too_wide)
    assert errors == []
    context.close()


def test_on_a_phone_the_sites_links_are_behind_a_menu_button(
    asgi_server: Server, browser: Any, daily: Daily, screenshots_dir: Path
) -> None:
    base = asgi_server.url
    make_player("ann")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{base}/rules/")
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "false")
    leagues = page.get_by_role("navigation", name="Site").get_by_role("link", name="Leagues")
    expect(leagues).to_be_hidden()

    # The keyboard opens it; every link is then on the screen; Escape closes it again.
    menu.focus()
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    links = page.get_by_role("navigation", name="Site").get_by_role("link")
    expect(links).to_have_count(7)
    for link in links.all():
        expect(link).to_be_in_viewport()
    fits_the_width(page)
    page.screenshot(path=str(screenshots_dir / "menu-phone.png"))
    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(leagues).to_be_hidden()
    expect(menu).to_be_focused()

    # A tap opens it and a link leads on.
    menu.click()
    leagues.click()
    page.wait_for_url(f"{base}/leagues/**")

    # On a desktop the links are all there and there is no menu button.
    page.set_viewport_size(DESKTOP)
    page.goto(f"{base}/rules/")
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    for link in page.get_by_role("navigation", name="Site").get_by_role("link").all():
        expect(link).to_be_in_viewport()
    context.close()


def test_on_a_phone_astrocytes_stock_cells_and_foundations_are_card_sized_under_the_status(
    asgi_server: Server, browser: Any, transactional_db: Any, screenshots_dir: Path
) -> None:
    """Fourteen piles on one row were 24 px wide at 390 px: the stock and the cells now
    share the tableau's columns, the foundations a row of their own under them; and the
    stock's stacked backs stay below the status line."""
    from tests.frontend.conftest import make_daily
    from tests.frontend.helpers import open_play

    daily = make_daily(variant="astrocyte", seed=4)
    make_player("ana")
    base = asgi_server.url
    page = browser.new_context(viewport=PHONE, reduced_motion="reduce").new_page()
    sign_in(page, base, "ana", f"/play/{daily.challenge_id}/")
    open_play(page, base, daily.challenge_id)
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")

    def box(selector: str) -> dict[str, float]:
        found = page.locator(selector).first.bounding_box()
        assert found, selector
        return found

    column = box("#board .column")
    for selector in ("#board .stock", "#board .cell", "#board .foundation"):
        assert box(selector)["width"] >= column["width"] - 1, selector
    assert box("#board .foundation")["y"] > box("#board .cell")["y"]  # a row of their own
    status = box("#status")
    for card in page.locator("#board .stock .card").all():
        top = card.bounding_box()
        assert top and top["y"] >= status["y"] + status["height"], "a stock card over the status"
    fits_the_width(page)
    page.screenshot(path=str(screenshots_dir / "astrocyte-phone-top-row.png"))
    page.context.close()
