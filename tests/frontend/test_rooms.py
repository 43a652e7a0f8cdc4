"""Race rooms in real browsers against the real ASGI server: the lobby, the start signal,
a race to the end (one racer wins by clicks, one resigns, one closes the page and comes
back), the live progress of the others, and the results with every racer's replay."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.frontend.conftest import Server, close_connection, make_player
from tests.frontend.helpers import (
    Recorder,
    action_count,
    assert_no_hidden_cards,
    click_action,
    hook_action,
    open_room_by_form,
    practice_deal,
    sign_in,
    take_seat_and_ready,
)
from tests.frontend.page_support import BROWSER_TEST, recorded_page

pytestmark = BROWSER_TEST


def race_solution(code: str) -> list[str]:
    from rooms.models import Room

    deal = Room.objects.select_related("deal").get(code=code).deal
    close_connection()
    assert deal is not None
    return list(deal.solution or [])


def racer_page(browser: Any, base: str, name: str, path: str) -> tuple[Page, Recorder]:
    _, page, recorder = recorded_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, base, name, path)
    return page, recorder


def racer_row(page: Page, name: str) -> Any:
    return page.locator(f"#racers tr[data-racer='{name}']")


def test_three_racers_one_wins_by_clicks_one_resigns_one_leaves_and_comes_back(
    asgi_server: Server, browser: Any
) -> None:
    base = asgi_server.url
    practice_deal()
    for name in ("ada", "bo", "cy"):
        make_player(name)
    ada, ada_seen = racer_page(browser, base, "ada", "/rooms/")
    code = open_room_by_form(ada, seats=3)
    bo, bo_seen = racer_page(browser, base, "bo", f"/rooms/{code}/")
    cy, _ = racer_page(browser, base, "cy", f"/rooms/{code}/")
    take_seat_and_ready(bo)
    take_seat_and_ready(cy)
    expect(racer_row(ada, "cy")).to_contain_text("ready")  # live, without a reload
    ada.click("#ready")

    expect(ada.locator("#countdown")).to_contain_text("starts in")
    for page in (ada, bo, cy):
        page.wait_for_selector("#room[data-racing='true']", timeout=10_000)
    solution = race_solution(code)

    # cy plays a little, closes the page, and comes back to the same attempt and clock.
    for action in solution[:3]:
        click_action(cy, action)
    cy.context.close()
    cy, cy_seen = racer_page(browser, base, "cy", f"/rooms/{code}/")
    cy.wait_for_selector("#room[data-racing='true']")
    assert action_count(cy) == 3
    click_action(cy, solution[3])
    expect(racer_row(ada, "cy")).to_contain_text("4")

    # bo resigns (two presses); ada sees it live.
    bo.click("#resign")
    bo.click("#resign")
    expect(racer_row(ada, "bo")).to_have_attribute("data-state", "resigned")
    expect(bo.locator("#result")).to_be_visible()
    expect(bo.locator("#results")).to_be_hidden()  # cy and ada still race

    # ada wins by clicks; the others see her progress without reloading.
    for action in solution:
        click_action(ada, action)
    expect(racer_row(bo, "ada")).to_have_attribute("data-state", "won")
    assert_no_hidden_cards(bo_seen)  # the race is not over for everyone: nothing revealed

    cy.click("#resign")
    cy.click("#resign")
    for page in (ada, bo, cy):
        page.wait_for_selector("#room[data-finished='true']")
        places = page.locator("#results-table tbody tr[data-racer]")
        expect(places).to_have_count(3)
        assert places.nth(0).get_attribute("data-racer") == "ada"
        assert places.nth(1).get_attribute("data-racer") == "cy"  # played, then resigned
        assert places.nth(2).get_attribute("data-racer") == "bo"  # resigned without a move
    bo.click("#results-table tr[data-racer='ada'] .replay-button")
    expect(bo.locator("#viewer-step")).to_have_text(f"0 / {len(solution)}")
    bo.click("#viewer-next")
    expect(bo.locator("#viewer-step")).to_contain_text(solution[0])
    bo.click("#solution-button")
    expect(bo.locator("#viewer-title")).to_have_text("The solution")
    for seen in (ada_seen, cy_seen):
        assert seen.frames, "the room's WebSocket sent nothing"
    for page in (ada, bo, cy):
        page.context.close()


def test_eight_racers_start_together_and_see_each_other_finish(
    asgi_server: Server, browser: Any
) -> None:
    base = asgi_server.url
    practice_deal()
    names = [f"r{n}" for n in range(8)]
    for name in names:
        make_player(name)
    host, _ = racer_page(browser, base, names[0], "/rooms/")
    code = open_room_by_form(host, seats=8)
    pages = [host]
    for name in names[1:]:
        page, _ = racer_page(browser, base, name, f"/rooms/{code}/")
        take_seat_and_ready(page)
        pages.append(page)
    expect(host.locator("#racers tbody tr")).to_have_count(8)
    host.click("#start")
    for page in pages:
        page.wait_for_selector("#room[data-racing='true']", timeout=15_000)
    solution = race_solution(code)
    winner = pages[1]
    for action in solution:
        hook_action(winner, action)
    for page in pages:
        expect(racer_row(page, names[1])).to_have_attribute("data-state", "won")
    for page in pages[:1] + pages[2:]:
        page.click("#resign")
        page.click("#resign")
    for page in pages:
        page.wait_for_selector("#room[data-finished='true']", timeout=15_000)
        first = page.locator("#results-table tbody tr[data-racer]").nth(0)
        assert first.get_attribute("data-racer") == names[1]
    for page in pages:
        page.context.close()


def test_at_the_races_time_limit_the_game_stops_and_the_results_show(
    asgi_server: Server, browser: Any
) -> None:
    """A race's time limit on an open page: the time left counts down, then the clock stops,
    no more actions are offered and, once the server has ended the race (as the beat does),
    the results show without a reload."""
    import datetime as dt

    from django.test import Client
    from django.utils import timezone

    from games.models import Attempt
    from rooms.models import Room
    from rooms.services import rooms_tidy
    from tests.rooms.conftest import started_room

    practice_deal()
    players = [make_player(name) for name in ("tia", "uma")]
    clients = []
    for player in players:
        client = Client()
        client.force_login(player)
        clients.append(client)
    code = started_room(clients)["code"]
    # The race began a moment ago and its time runs out within seconds (a short limit set
    # on the row: the API's least is a minute).
    now = timezone.now()
    ends = now + dt.timedelta(seconds=8)
    Room.objects.filter(code=code).update(starts_at=now - dt.timedelta(seconds=1), ends_at=ends)
    Attempt.objects.filter(seat__room__code=code).update(
        started_at=now - dt.timedelta(seconds=1), play_until=ends
    )
    solution = race_solution(code)

    page, _ = racer_page(browser, asgi_server.url, "tia", f"/rooms/{code}/")
    page.wait_for_selector("#room[data-racing='true']")
    expect(page.locator("#time-left-box")).to_be_visible()
    hook_action(page, solution[0])
    expect(page.locator("#actions")).to_have_text("1")

    expect(page.locator("#status")).to_contain_text("Time is up", timeout=20_000)
    expect(page.locator("#resign")).to_be_disabled()
    expect(page.locator("#undo")).to_be_disabled()
    assert rooms_tidy()["ended"] == 1  # the beat's job, after the limit
    ended = Attempt.objects.get(seat__room__code=code, player__username="tia")
    close_connection()
    expect(page.locator("#results")).to_be_visible(timeout=40_000)
    expect(page.locator("#results-table tbody tr[data-racer='tia']")).to_contain_text("1")
    # The clock shown is the one the score counted: the time of the last action.
    seconds = int(ended.elapsed_seconds or 0)
    expect(page.locator("#clock")).to_have_text(f"{seconds // 60}:{seconds % 60:02d}")
    page.context.close()
