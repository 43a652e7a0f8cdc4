"""League pages in a real browser: my leagues, a league's page (today's board, members,
invite link, the owner's tools), joining by the link, and the league switch of the play
page's live panel."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.frontend.a11y import assert_accessible
from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, close_connection, make_player
from tests.frontend.helpers import assert_no_hidden_cards, finished_games, sign_in
from tests.frontend.page_support import BROWSER_TEST, recorded_page

pytestmark = BROWSER_TEST


def ready(page: Page) -> None:
    page.wait_for_selector("#leaguepage[data-ready='true']")


def test_create_invite_join_board_rotate_and_remove(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    make_player("olga")
    make_player("late")
    # fred (to join) resigns after 3 actions; zed (an outsider) has the day's best game.
    finished_games(daily, {"zed": None, "fred": 3})

    owner = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(owner, base, "olga", "/leagues/")
    ready(owner)
    expect(owner.locator("#my-leagues")).to_contain_text("You are in no league yet.")
    assert_accessible(owner, "my leagues, none yet")
    owner.fill("#league-name", "   ")
    owner.click("#create-form button")
    expect(owner.locator("#status")).to_contain_text("may not be blank")
    owner.fill("#league-name", "Night owls")
    owner.click("#create-form button")
    owner.wait_for_url(re.compile(r"/leagues/\d+/$"))
    ready(owner)
    expect(owner.locator("#league-title")).to_have_text("Night owls")
    link = owner.locator("#invite-link").input_value()
    assert re.fullmatch(rf"{re.escape(base)}/leagues/join/[\w-]+/", link), link
    assert_accessible(owner, "a league's page, its owner")

    friend = browser.new_context(viewport=PHONE).new_page()
    sign_in(friend, base, "fred", "/")
    friend.goto(link)
    ready(friend)
    assert_accessible(friend, "an invite link's page")
    friend.click("#join")
    friend.wait_for_url(re.compile(r"/leagues/\d+/$"))
    ready(friend)
    expect(friend.locator("#members li")).to_have_count(2)
    expect(friend.locator("#leave")).to_be_visible()
    expect(friend.locator("#rotate-invite")).to_be_hidden()
    assert_accessible(friend, "a league's page on a phone, a member")

    # Today's board of the league: its members only, ranked within it.
    owner.reload()
    ready(owner)
    board = owner.locator(f".league-board[data-challenge='{daily.challenge_id}']")
    expect(board.locator("tbody tr")).to_have_count(1)
    expect(board.locator("tbody tr").first).to_contain_text("fred")
    expect(board).not_to_contain_text("zed")
    assert_accessible(owner, "a league's page with today's board")
    owner.goto(f"{base}/leagues/")
    ready(owner)
    expect(owner.locator("#my-leagues li")).to_have_count(1)
    assert_accessible(owner, "my leagues, one")
    owner.go_back()
    ready(owner)

    # A new link: the old one refuses with the server's words.
    owner.click("#rotate-invite")
    expect(owner.locator("#status")).to_contain_text("old one no longer works")
    assert owner.locator("#invite-link").input_value() != link
    late = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(late, base, "late", "/")
    late.goto(link)
    ready(late)
    # Said as the page opens (the invite is looked up first): nothing to join.
    expect(late.locator("#status")).to_contain_text("not valid")
    expect(late.locator("#join")).to_be_hidden()

    # The owner removes fred; his page of the league is gone.
    owner.click("#members li[data-member='fred'] button")
    expect(owner.locator("#status")).to_contain_text("fred was removed")
    expect(owner.locator("#members li")).to_have_count(1)
    friend.reload()
    ready(friend)
    expect(friend.locator("#status")).to_contain_text("not a member")
    for page in (owner, friend, late):
        page.context.close()


def test_the_play_pages_live_panel_switches_to_a_league(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from leaderboards.leagues.services import league_create, league_join

    base = asgi_server.url
    from django.contrib.auth import get_user_model

    finished_games(daily, {"zed": None, "bob": 4})
    ann = make_player("ann")
    league = league_create(owner=ann, name="Pals")
    league_join(player=get_user_model().objects.get(username="bob"), code=league.invite_code)
    close_connection()

    _, page, recorder = recorded_page(browser, viewport=DESKTOP)
    sign_in(page, base, "ann", f"/play/{daily.challenge_id}/?league={league.pk}")
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#board-scope")).to_have_value(str(league.pk))
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("bob")
    assert_accessible(page, "the play page, a league's live board")

    page.select_option("#board-scope", "")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("zed")

    page.select_option("#board-scope", str(league.pk))
    expect(rows).to_have_count(1)
    # A live push of the league: ann finishes and ranks first within it.
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")
    page.evaluate("(actions) => window.astrocyte.send(actions)", daily.solution)
    expect(rows).to_have_count(2, timeout=15000)
    expect(rows.first).to_contain_text("ann")
    expect(page.locator("#my-rank")).to_contain_text("Your rank in the league: 1")
    assert_no_hidden_cards(recorder)
    page.context.close()
