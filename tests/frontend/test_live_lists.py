"""The league page and the race-room list follow what happens without a reload: a member
who starts, plays and finishes is seen playing (with the action count), then ranked; a
room opened, joined and started comes into the list, counts its seats, then leaves it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, Daily, Server, close_connection, make_player
from tests.frontend.helpers import (
    CARD_IN_JSON,
    assert_no_hidden_cards,
    open_room_by_form,
    practice_deal,
    sign_in,
    take_seat_and_ready,
)
from tests.frontend.page_support import BROWSER_TEST, recorded_page

pytestmark = BROWSER_TEST


def test_the_league_page_shows_a_member_playing_then_ranked_without_a_reload(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from leaderboards.leagues.services import league_create, league_join

    base = asgi_server.url
    ann, bob = make_player("ann"), make_player("bob")
    league = league_create(owner=ann, name="Pals")
    league_join(player=bob, code=league.invite_code)
    close_connection()

    _, page, recorder = recorded_page(browser, viewport=DESKTOP)
    sign_in(page, base, "ann", f"/leagues/{league.pk}/")
    page.wait_for_selector("#leaguepage[data-ready='true']")
    board = page.locator(f".league-board[data-challenge='{daily.challenge_id}']")
    expect(board.locator(".live-state")).to_have_text("Live")
    expect(board.locator("tbody")).to_contain_text("No member has finished yet.")
    expect(board.locator(".playing")).to_contain_text("No member is playing right now.")

    # bob starts and plays a few moves (no deal) on his play page: ann sees him playing,
    # with his action count.
    bob_page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(bob_page, base, "bob", f"/play/{daily.challenge_id}/")
    bob_page.wait_for_selector("#play[data-ready='true']")
    bob_page.click("#start")
    expect(bob_page.locator("#status")).to_contain_text("clock is running")
    moves = daily.solution[: min(4, daily.solution.index("deal"))]
    bob_page.evaluate("(actions) => window.astrocyte.send(actions)", moves)
    expect(bob_page.locator("#actions")).to_have_text(str(len(moves)))
    playing = board.locator(".playing li[data-player='bob']")
    expect(playing).to_contain_text(f"{len(moves)} actions")
    expect(board.locator(".board-counts")).to_contain_text("1 playing now")

    # He plays on to the win: ranked first, no longer playing.
    bob_page.evaluate("(actions) => window.astrocyte.send(actions)", daily.solution[len(moves) :])
    expect(board.locator("tbody tr").first).to_contain_text("bob", timeout=15000)
    expect(board.locator("tbody tr").first).to_contain_text("won")
    expect(playing).to_have_count(0)
    expect(board.locator(".board-counts")).to_contain_text("1 finished · 0 playing now")
    bob_page.context.close()

    assert_no_hidden_cards(recorder)
    assert recorder.frames and not any(CARD_IN_JSON.search(frame) for frame in recorder.frames)
    page.context.close()


def test_the_room_list_follows_rooms_opened_joined_and_started_without_a_reload(
    asgi_server: Server, browser: Any, transactional_db: Any
) -> None:
    from rooms.services import room_create

    base = asgi_server.url
    practice_deal()
    host = make_player("host")
    make_player("guest")

    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(f"{base}/rooms/")
    page.wait_for_selector("#rooms[data-ready='true']")
    expect(page.locator("#rooms-live")).to_have_text("Live")
    rows = page.locator("#room-list tbody tr[data-code]")
    expect(rows).to_have_count(0)

    # The host opens a public room (and a private one, never listed) on the rooms page.
    host_page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(host_page, base, "host", "/rooms/")
    code = open_room_by_form(host_page, seats=4)
    row = page.locator(f"#room-list tr[data-code='{code}']")
    expect(row).to_contain_text("1 / 4")
    expect(row).to_contain_text("host")
    hidden = room_create(host=host, variant="spider1", seats=2, public=False, time_limit_minutes=5)
    close_connection()

    # A guest takes a seat: the list counts it.
    guest_page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(guest_page, base, "guest", f"/rooms/{code}/")
    take_seat_and_ready(guest_page)
    expect(row).to_contain_text("2 / 4")
    expect(page.locator(f"#room-list tr[data-code='{hidden.code}']")).to_have_count(0)

    # The race starts: the room leaves the list.
    host_page.click("#ready")
    expect(row).to_have_count(0)
    expect(page.locator("#room-list tbody")).to_contain_text("No public room is taking seats")
    for other in (host_page, guest_page):
        other.context.close()
    page.context.close()
