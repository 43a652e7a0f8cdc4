"""The archive in a real browser: a past daily's calendar, its deal played again as
practice beside that day's board, and where it would have ranked; today's and tomorrow's
dailies stay out of it."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from playwright.sync_api import expect

from tests.frontend.a11y import assert_accessible
from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, close_connection, make_player
from tests.frontend.helpers import (
    action_count,
    assert_no_hidden_cards,
    attempt,
    click_action,
    close_the_day,
    finished_games,
    hook_action,
    sign_in,
    wait_count,
)
from tests.frontend.page_support import BROWSER_TEST, recorded_page

pytestmark = BROWSER_TEST


def board_usernames(page: Any, challenge_id: int) -> list[str]:
    body = page.evaluate(
        "async (id) => (await (await fetch(`/api/v1/leaderboards/challenges/${id}/`)).json())",
        challenge_id,
    )
    return [row["username"] for row in body["top"]]


def test_a_past_daily_is_found_on_the_calendar_replayed_and_would_have_ranked(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    finished_games(daily, {"ann": None, "bob": 5})
    close_the_day(daily)
    make_player("late")
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    sign_in(page, base, "late", "/archive/")

    # The calendar: the variant's month with the past day as a link.
    page.select_option("#variant", daily.variant)
    page.wait_for_selector("#archive[data-ready='true']")
    day = page.locator("#calendar a")
    expect(day).to_have_count(1)
    expect(day).to_have_attribute("href", f"/archive/{daily.challenge_id}/")
    assert_accessible(page, "the archive's calendar")
    day.click()

    # The day's page: that day's board beside the deal; Start plays it as practice.
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#game-title")).to_contain_text("(archive)")
    expect(page.locator("#leaderboard tbody tr")).to_have_count(2)
    expect(page.locator("#leaderboard tbody")).to_contain_text("ann")
    expect(page.locator("#board-count")).to_have_text("2 finished that day.")
    assert_accessible(page, "the archive's day, before Start")
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")
    assert attempt(page)["kind"] == "practice"
    assert re.search(r"\?attempt=\d+$", page.url)
    for action in daily.solution[:3]:
        click_action(page, action)
    for action in daily.solution[3:]:
        hook_action(page, action)
    wait_count(page, len(daily.solution))

    # Won, slower than ann and above bob: second of the three it would have made.
    expect(page.locator("#result")).to_contain_text("You won!")
    expect(page.locator("#would-rank")).to_have_text("This would have ranked #2 of 3 that day.")
    expect(page.locator("#result")).to_contain_text("would have been 2 of 3 that day")
    assert "rank" not in page.input_value("#share")
    assert_accessible(page, "the archive's day, won")
    assert board_usernames(page, daily.challenge_id) == ["ann", "bob"]
    assert action_count(page) == len(daily.solution)
    assert_no_hidden_cards(recorder)
    context.close()


def test_todays_and_tomorrows_dailies_are_not_in_the_archive(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from django.utils import timezone

    from games.services.deals import deal_schedule
    from tests.factories import verified_deal

    tomorrow = deal_schedule(
        deal=verified_deal("spider1", 1), date=timezone.now().date() + dt.timedelta(days=1)
    )
    close_connection()
    finished_games(daily, {"ann": 4})
    make_player("peek")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, asgi_server.url, "peek", "/archive/")
    page.wait_for_selector("#archive[data-ready='true']")
    expect(page.locator("#calendar a")).to_have_count(0)

    page.goto(f"{asgi_server.url}/archive/{daily.challenge_id}/")
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#status")).to_contain_text("not over yet")
    expect(page.locator("#start")).to_be_hidden()
    assert_accessible(page, "the archive's page of today's daily")
    refused = page.evaluate(
        """async (ids) => Promise.all(ids.map(async (id) => {
          const csrf = document.cookie.match(/csrftoken=([^;]+)/)[1];
          const r = await fetch(`/api/v1/challenges/${id}/practice/`,
            { method: "POST", headers: { "X-CSRFToken": csrf } });
          return [r.status, await r.json()];
        }))""",
        [daily.challenge_id, tomorrow.pk, tomorrow.pk + 1000],
    )
    assert [status for status, _ in refused] == [404, 404, 404]
    assert refused[0][1] == refused[1][1] == refused[2][1]

    page.goto(f"{asgi_server.url}/archive/{tomorrow.pk}/")
    expect(page.locator("#status")).to_have_text("No such challenge.")
    expect(page.locator("#start")).to_be_hidden()
    context.close()
