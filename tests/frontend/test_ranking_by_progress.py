"""A player who gave up at once and one who played on, on every board a browser shows
(docs/rules.md, "How boards rank": progress before score): the day's board, a league's
board, the play page's live board and, once the day is over, the day's replays."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.frontend.conftest import DESKTOP, Daily, Server, close_connection
from tests.frontend.helpers import close_the_day, finished_games, sign_in
from tests.frontend.page_support import BROWSER_TEST

pytestmark = BROWSER_TEST


def ranked_names(page: Page, rows: str) -> list[str]:
    """The usernames of the rows ``rows`` selects, top to bottom (the second cell)."""
    page.wait_for_selector(rows)
    return [
        re.sub(r" \(you\)$", "", name)
        for name in page.locator(f"{rows} td:nth-child(2)").all_inner_texts()
    ]


def test_a_player_who_played_on_outranks_one_who_gave_up_at_once_on_every_board(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from games.models import Attempt
    from leaderboards.leagues.services import league_create, league_join

    base = asgi_server.url
    finished_games(daily, {"dora": 1, "nova": 12})
    dora, nova = (Attempt.objects.get(player__username=name) for name in ("dora", "nova"))
    # The premise: dora's score is the higher, nova turned up more cards.
    assert dora.score is not None and nova.score is not None and dora.score > nova.score
    assert nova.cards_turned_up > dora.cards_turned_up
    league = league_create(owner=dora.player, name="Both")
    league_join(player=nova.player, code=league.invite_code)
    close_connection()
    progress = re.compile(rf"0/8 runs · {nova.cards_turned_up}/\d+ turned up")

    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, base, "dora", f"/leaderboards/{daily.challenge_id}/")
    page.wait_for_selector("#boardpage[data-ready='true']")
    assert ranked_names(page, "#ranking tbody tr[data-rank]") == ["nova", "dora"]
    expect(page.locator("#ranking thead")).to_contain_text("Progress")
    expect(page.locator("#ranking tbody tr[data-rank='1']")).to_contain_text(progress)

    page.goto(f"{base}/leagues/{league.pk}/")
    board = f".league-board[data-challenge='{daily.challenge_id}'] tbody tr"
    assert ranked_names(page, board) == ["nova", "dora"]
    expect(page.locator(board).first).to_contain_text(progress)

    page.goto(f"{base}/play/{daily.challenge_id}/")
    page.wait_for_selector("#play[data-ready='true']")
    expect(page.locator("#leaderboard tbody tr")).to_have_count(2)
    assert ranked_names(page, "#leaderboard tbody tr") == ["nova", "dora"]
    expect(page.locator("#leaderboard tbody tr").first).to_contain_text(progress)

    close_the_day(daily)
    page.goto(f"{base}/challenges/{daily.challenge_id}/replays/")
    games = page.locator("#games details summary")
    expect(games).to_have_count(2)
    expect(games.nth(0)).to_contain_text("1. nova")
    expect(games.nth(0)).to_contain_text(progress)
    expect(games.nth(1)).to_contain_text("2. dora")
