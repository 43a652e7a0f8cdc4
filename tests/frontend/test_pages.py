"""The pages around the game, in a real browser: replays, leaderboards, the player profile,
practice with hints, and the streak on the home page."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import (
    DESKTOP,
    PHONE,
    Daily,
    Server,
    close_connection,
    make_player,
)
from tests.frontend.helpers import (
    MOVE,
    close_the_day,
    finished_games,
    fits_the_width,
    no_card_in_page_source,
    sign_in,
)
from tests.frontend.page_support import BROWSER_TEST, page_errors, recorded_page

pytestmark = BROWSER_TEST


def test_a_closed_days_replays_show_the_deal_the_solution_and_every_game(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    ids = finished_games(daily, {"winner": None, "quitter": 5})
    close_the_day(daily)
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    errors = page_errors(page)

    page.goto(f"{base}/challenges/{daily.challenge_id}/replays/")
    page.wait_for_selector("#replay[data-ready='true']")
    expect(page.locator("#status")).to_contain_text("the solution and 2 games")
    # The full deal: every tableau card face up (44 of them dealt face down), the stock.
    expect(page.locator("#deal-board .column .card")).to_have_count(54)
    expect(page.locator("#deal-board .column .card.back")).to_have_count(0)
    expect(page.locator("#deal-board .card.was-down")).to_have_count(44)
    expect(page.locator("#deal-stock .card")).to_have_count(50)
    # The solver's solution, move by move.
    expect(page.locator("#solution li")).to_have_count(len(daily.solution))
    assert page.locator("#solution li code").all_inner_texts() == daily.solution
    # Everyone's finished games, best first, each with its moves.
    games = page.locator("#games details")
    expect(games).to_have_count(2)
    expect(games.nth(0)).to_contain_text("winner")
    expect(games.nth(0)).to_contain_text("Won")
    expect(games.nth(1)).to_contain_text("quitter")
    expect(games.nth(1)).to_contain_text("Resigned")
    games.nth(0).locator("summary").click()
    expect(games.nth(0).locator("li")).to_have_count(len(daily.solution))

    # The winner's own replay: summary, the deal, the final position, the moves.
    sign_in(page, base, "winner", f"/replay/{ids['winner']}/")
    page.wait_for_selector("#replay[data-ready='true']")
    expect(page.locator("#summary")).to_contain_text("Won")
    expect(page.locator("#moves li")).to_have_count(len(daily.solution))
    expect(page.locator("#final-board .foundation[aria-label*='complete run']")).to_have_count(8)
    expect(page.locator("#replay-links")).to_contain_text("Everyone's games")
    page.set_viewport_size(PHONE)
    fits_the_width(page)
    # Someone else's game number is not theirs to open.
    page.goto(f"{base}/replay/{ids['quitter']}/")
    expect(page.locator("#status")).to_contain_text("No game of yours")

    no_card_in_page_source(recorder)
    assert errors == []
    context.close()


def test_the_days_leaderboard_shows_ranks_and_the_own_rank_outside_the_top(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from leaderboards.selectors import leaderboard_for_day

    base = asgi_server.url
    finished_games(daily, {"ann": None, "bob": 20, "cid": 2})
    rows = leaderboard_for_day(daily.challenge_id, 10, 0)
    close_connection()
    assert [row.rank for row in rows] == [1, 2, 3]
    last = rows[-1].username

    context, page, recorder = recorded_page(browser, viewport=PHONE)
    sign_in(page, base, last, f"/leaderboards/{daily.challenge_id}/?limit=2")
    page.wait_for_selector("#boardpage[data-ready='true']")
    body = page.locator("#ranking tbody")
    expect(body.locator("tr[data-rank]")).to_have_count(3)  # the top 2, then the own row
    assert body.locator("tr[data-rank] td:first-child").all_inner_texts() == ["1", "2", "3"]
    expect(body.locator("tr[data-rank='1']")).to_contain_text(rows[0].username)
    expect(body.locator("tr.me")).to_contain_text(f"{last} (you)")
    expect(page.locator("#my-rank")).to_have_text(re.compile(r"Your rank: 3 of 3"))
    expect(page.locator("#counts")).to_contain_text("3 finished")
    fits_the_width(page)

    # The all-time board adds up won dailies only: the winner alone.
    page.goto(f"{base}/leaderboards/alltime/")
    page.wait_for_selector("#boardpage[data-ready='true']")
    expect(page.locator("#ranking tbody tr[data-rank]")).to_have_count(1)
    expect(page.locator("#ranking tbody tr[data-rank='1']")).to_contain_text("ann")
    expect(page.locator("#ranking thead")).to_contain_text("Days won")
    expect(page.locator("#ranking tbody tr.me")).to_have_count(0)
    fits_the_width(page)

    # The streak board: only the winner is on a streak (of the daily's variant).
    page.goto(f"{base}/leaderboards/streaks/")
    page.wait_for_selector("#boardpage[data-ready='true']")
    page.locator("#variant").select_option(daily.variant)
    page.wait_for_selector("#boardpage[data-ready='true']")
    streak_rows = page.locator("#ranking tbody tr[data-rank]")
    expect(streak_rows).to_have_count(1)
    expect(streak_rows.nth(0)).to_contain_text("ann")
    expect(streak_rows.nth(0)).to_contain_text("1 day")
    fits_the_width(page)
    no_card_in_page_source(recorder)
    context.close()


def api_as(base: str, token: str, method: str, path: str, body: Any = None) -> Any:
    """An API client's call to the browser tests' server (its own process and layer)."""
    import json
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}/api/v1/{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.load(answer)


def test_an_open_days_leaderboard_follows_the_day_live(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from rest_framework.authtoken.models import Token

    base = asgi_server.url
    token = Token.objects.create(user=make_player("lin")).key
    close_connection()
    page = browser.new_page(viewport=DESKTOP)
    loads: list[str] = []
    page.on("load", lambda loaded: loads.append(loaded.url))
    page.goto(f"{base}/leaderboards/{daily.challenge_id}/")
    page.wait_for_selector("#boardpage[data-ready='true']")
    expect(page.locator("#ranking tbody")).to_contain_text("Nobody has finished yet.")
    expect(page.locator("#boardpage")).to_have_attribute("data-live", "open")

    # Another player, through the API: one action, then resigns; the page is not reloaded.
    attempt = api_as(base, token, "POST", f"challenges/{daily.challenge_id}/start/")
    action = attempt["legal_actions"][0]
    api_as(
        base,
        token,
        "POST",
        f"attempts/{attempt['id']}/actions/",
        {"offset": 0, "actions": [action]},
    )
    api_as(base, token, "POST", f"attempts/{attempt['id']}/resign/")
    expect(page.locator("#ranking tbody tr[data-rank='1']")).to_contain_text("lin", timeout=10_000)
    expect(page.locator("#counts")).to_contain_text("1 finished · 0 playing now")
    assert len(loads) == 1, loads


def test_the_profile_shows_stats_streaks_and_histograms_and_home_the_streak(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    finished_games(daily, {"ann": None})
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    page.goto(f"{base}/players/ann/")
    page.wait_for_selector("#profile[data-ready='true']")
    stats = page.locator("#stats")
    expect(stats).to_contain_text(re.compile(r"Played\s*1"))
    expect(stats).to_contain_text(re.compile(r"Won\s*1"))
    expect(stats).to_contain_text(re.compile(r"Win rate\s*100%"))
    counts = page.locator("#histogram .bar-count").all_inner_texts()
    assert sum(int(count) for count in counts) == 1
    runs = page.locator("#runs tbody tr")
    expect(runs.filter(has_text=re.compile(r"^8"))).to_contain_text("1")
    # One variant only: the same game (spider1), no other variant's streak.
    page.select_option("#variant", "spider1")
    page.wait_for_selector("#profile[data-ready='true']")
    expect(page.locator("#streaks tbody tr")).to_have_count(1)
    only = page.locator("#streaks tbody tr")
    expect(only).to_contain_text(re.compile(r"Spider \(1 suit\)\s*1\s*1"))

    # Home: the signed-in player's streak, the top three of each of today's boards, live,
    # and yesterday's result (a daily of yesterday that ann won, another player's best).
    from django.contrib.auth.models import User
    from django.utils import timezone

    from tests.factories import make_challenge
    from tests.leaderboards.conftest import make_attempt

    yesterday = make_challenge(
        date=timezone.now().date() - dt.timedelta(days=1), variant=daily.variant
    )
    ended = timezone.now() - dt.timedelta(days=1)
    make_attempt(yesterday, User.objects.get(username="ann"), score=700, won=True, ended_at=ended)
    make_attempt(yesterday, make_player("bea"), score=900, won=True, ended_at=ended)
    close_connection()
    sign_in(page, base, "ann", "/")
    expect(page.locator("#streak")).to_contain_text("Your streak")
    # (yesterday's win and today's: two days in a row)
    expect(page.locator("#streak")).to_contain_text("Spider (1 suit): 2 days (best 2)")
    expect(page.locator("#streak a")).to_have_attribute("href", "/players/ann/")
    expect(page.locator(".top-three")).to_contain_text(re.compile(r"The top three: 1\. ann \d+"))
    expect(page.locator("#yesterday")).to_contain_text(
        "Spider (1 suit), yesterday: you won, score 700, rank 2 of 2. The best: bea with 900."
    )
    page.goto(f"{base}/players/nobody-at-all/")
    expect(page.locator("#status")).to_contain_text("No player")
    no_card_in_page_source(recorder)
    context.close()


@pytest.fixture
def practice_deal(transactional_db: Any) -> None:
    from games.models import Deal
    from games.services.deals import deal_create, deal_verify

    deal = deal_create(variant="spider1", pool=Deal.Pool.PRACTICE, seed=2)
    deal = deal_verify(deal_id=deal.pk, seconds=30)
    assert deal.solution
    close_connection()


def test_practice_with_a_hint_highlights_a_legal_action(
    asgi_server: Server, browser: Any, practice_deal: None
) -> None:
    from tests.frontend.helpers import assert_no_hidden_cards, click_action

    base = asgi_server.url
    make_player("pia")
    context, page, recorder = recorded_page(browser, viewport=PHONE)
    errors = page_errors(page)
    sign_in(page, base, "pia", "/practice/")
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#live-state")).to_have_count(0)
    page.select_option("#variant", "spider1")
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")
    expect(page.locator("#board .column")).to_have_count(10)
    assert re.search(r"\?attempt=\d+$", page.url)

    # A proxy's 503 page is a lost connection; the server's own JSON 503 is its words.
    page.route(
        "**/hint/",
        lambda route: route.fulfill(status=503, content_type="text/html", body="<h1>503</h1>"),
    )
    page.click("#hint")
    expect(page.locator("#status")).to_have_text("No connection: no hint. Try again.")
    page.unroute("**/hint/")
    busy = {"code": "hints_busy", "message": "All hint searches are taken.", "details": None}
    page.route("**/hint/", lambda route: route.fulfill(status=503, json={"error": busy}))
    page.click("#hint")
    expect(page.locator("#status")).to_have_text("All hint searches are taken.")
    expect(page.locator("#board .card.hint")).to_have_count(0)
    page.unroute("**/hint/")

    page.click("#hint")
    expect(page.locator("#status")).to_contain_text("Hint:")
    hint = page.evaluate("() => window.astrocyte.state().hint")
    legal = page.evaluate("() => window.astrocyte.state().attempt.legal_actions")
    assert hint["action"] in legal
    match = MOVE.match(hint["action"])
    assert match, hint
    src, dst, n = match.group(1), match.group(2), int(match.group(3) or 1)
    expect(page.locator(f"#board .column[data-pile='{src}'] .card.hint")).to_have_count(n)
    destination = page.locator(f"#board .column[data-pile='{dst}']")
    expect(destination).to_have_class(re.compile("hint-target"))
    expect(page.locator("#board .hint-target")).to_have_count(1)

    # Playing it clears the highlight; a reload goes on with the same practice game.
    click_action(page, hint["action"])
    expect(page.locator("#board .card.hint")).to_have_count(0)
    page.reload()
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#actions")).to_have_text("1")
    expect(page.locator("#practice-setup")).to_be_hidden()
    fits_the_width(page)
    # A new practice game: the menu offers no blank choice and starts on the variant
    # chosen last time in this browser.
    page.goto(f"{base}/practice/")
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#variant option[value='']")).to_have_count(0)
    expect(page.locator("#variant")).to_have_value("spider1")
    assert_no_hidden_cards(recorder)
    assert errors == []
    context.close()


def test_practice_without_a_deal_shows_the_servers_503_message(
    asgi_server: Server, browser: Any, transactional_db: Any
) -> None:
    """The pool has no deal: the server answers 503 no_practice_deal with its own JSON
    error, and the page says what the server said, not "No connection"."""
    base = asgi_server.url
    make_player("noa")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    sign_in(page, base, "noa", "/practice/")
    page.wait_for_selector("#play[data-ready='true']")
    page.select_option("#variant", "spider4")
    with page.expect_response("**/practice/start/") as started:
        page.click("#start")
    assert started.value.status == 503
    assert started.value.json()["error"]["code"] == "no_practice_deal"
    message = "No verified practice deal of spider4 is free yet; try again soon."
    expect(page.locator("#status")).to_have_text(message)
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator("#start")).to_be_enabled()  # the player may try again
    expect(page.locator("#practice-setup")).to_be_visible()
    context.close()


def test_the_admins_deal_list_fits_1280_px_and_is_paginated(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from django.contrib.auth.models import User

    from games.services.deals import deal_create

    for _ in range(30):
        deal_create(variant="spider4")
    User.objects.create_superuser("op", "op@example.com", "op-password-123")
    close_connection()
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.goto(f"{asgi_server.url}/admin/login/?next=/admin/games/deal/")
    page.fill("#id_username", "op")
    page.fill("#id_password", "op-password-123")
    page.click("input[type='submit']")
    page.wait_for_selector("#result_list")
    expect(page.locator("#result_list tbody tr")).to_have_count(25)
    expect(page.locator(".paginator")).to_contain_text("31 deals")
    fits_the_width(page)
    page.close()
