"""The replay page's game analysis in a real browser: asked with a click, the chart of moves
to win drawn, the losing action marked, the winning alternative stepped on the board."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.celery_worker import start_celery_worker
from tests.frontend.conftest import (
    DESKTOP,
    Daily,
    Server,
    make_player,
    start_server,
    stop_server,
    wait_for_server_sessions_to_end,
)
from tests.frontend.helpers import close_the_day, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def lost_game(daily: Daily) -> int:
    """10 actions of the solution, then 100 first-legal moves (no undo): no win is found."""
    from games.selectors import attempt_board
    from games.services.attempts import (
        attempt_push_actions,
        attempt_resign,
        attempt_start_ranked,
    )

    player = make_player("loser")
    attempt, _ = attempt_start_ranked(player=player, challenge_id=daily.challenge_id)
    board = attempt_board(attempt)
    log = list(daily.solution[:10])
    for action in log:
        board.push_text(action)
    for _ in range(100):
        moves = [m for m in board.legal_moves() if str(m) != "undo"]
        if not moves or board.is_won:
            break
        board.push(moves[0])
        log.append(str(moves[0]))
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=log)
    attempt_resign(attempt_id=attempt.pk, player=player)
    return int(attempt.pk)


# The test server's budget (tests/frontend/conftest.py), for a worker too: nodes decide, the
# seconds are a cap no analysis here reaches.
BUDGET = {
    "ANALYSIS_SECONDS": "600",
    "ANALYSIS_POSITION_SECONDS": "120",
    "ANALYSIS_POSITION_NODES": "20000",
}


@pytest.fixture
def analysis_server(tmp_path: Path, daily: Daily) -> Iterator[Server]:
    """A server whose analyses run as the mode says: embedded, in a thread of the server; with
    Redis, on a real Celery worker of their own queue (the server's broker is the tests')."""
    from django.conf import settings

    worker = None
    extra: dict[str, str] = {}
    if settings.REDIS_URL:
        queue = f"analysis-{uuid.uuid4().hex[:10]}"
        extra = {"REDIS_URL": settings.REDIS_URL, "CELERY_TASK_DEFAULT_QUEUE": queue}
        worker = start_celery_worker(tmp_path, extra_env=BUDGET, queue=queue)
    server = start_server(tmp_path, extra)
    try:
        yield server
    finally:
        stop_server(server)
        if worker is not None:
            worker.stop()
        wait_for_server_sessions_to_end()


def test_the_analysis_marks_the_losing_action_and_shows_the_alternative(
    analysis_server: Server, browser: Any, daily: Daily
) -> None:
    base = analysis_server.url
    attempt = lost_game(daily)
    close_the_day(daily)
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page, base, "loser", f"/replay/{attempt}/")
    page.wait_for_selector("#replay[data-ready='true']")
    page.locator("#analysis-ask").click()
    expect(page.locator("#analysis-status")).to_contain_text("Analysed", timeout=300_000)
    expect(page.locator("#analysis-svg .analysis-point").first).to_be_visible()
    expect(page.locator("#analysis-x-axis")).to_have_text("actions played")
    expect(page.locator("#analysis-y-axis")).to_have_text("moves to win")
    expect(page.locator("#analysis-lost-mark")).to_have_count(1)
    expect(page.locator("#analysis-lost")).to_contain_text("The game was lost here")
    page.locator("#analysis-alt").click()
    board = page.locator("#analysis-board")
    expect(board.locator(".card").first).to_be_visible()
    expect(board.locator(".stock .badge")).to_have_text(re.compile(r"^[0-5]$"))
    before = board.inner_html()
    page.locator("#analysis-alt-next").click()
    expect(page.locator("#analysis-alt-step")).to_contain_text("1 of")
    assert board.inner_html() != before
    assert errors == []
