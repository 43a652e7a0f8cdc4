"""The replay page's game analysis in a real browser: asked with a click, the chart of moves
to win drawn, the losing action marked, the winning alternative stepped on the board."""

from __future__ import annotations

import json
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
    make_daily,
    make_player,
    start_server,
    stop_server,
    wait_for_server_sessions_to_end,
)
from tests.frontend.helpers import close_the_day, sign_in
from tests.games.lost_play import LOST_SEED, LOST_VARIANT, losing_log

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def daily(transactional_db: Any) -> Daily:
    """Today's daily: the deal tests/games/lost_play.py loses."""
    return make_daily(LOST_VARIANT, LOST_SEED)


def lost_game(daily: Daily) -> int:
    """The daily played wrong (tests/games/lost_play.py): a win is found early on, none at
    the end."""
    from games.selectors import attempt_board
    from games.services.attempts import (
        attempt_push_actions,
        attempt_resign,
        attempt_start_ranked,
    )

    player = make_player("loser")
    attempt, _ = attempt_start_ranked(player=player, challenge_id=daily.challenge_id)
    log = losing_log(attempt_board(attempt), list(daily.solution))
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=log)
    attempt_resign(attempt_id=attempt.pk, player=player)
    return int(attempt.pk)


# The test server's budget (tests/frontend/conftest.py), for a worker too: nodes decide, the
# seconds are a cap no analysis here reaches.
BUDGET = {
    "ANALYSIS_SECONDS": "600",
    "ANALYSIS_POSITION_SECONDS": "120",
    "ANALYSIS_POSITION_NODES": "20000",
    "ANALYSIS_NODES": "400000",
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
    # the sentence matches the analysis: a proof is said plainly with its size, "as far as
    # the analysis could tell" only when the position after the action ran out of budget
    answer = page.evaluate(
        "async (url) => (await fetch(url, {credentials: 'same-origin'})).json()",
        f"{base}/api/v1/attempts/{attempt}/analysis/",
    )
    after = next(p for p in answer["positions"] if p["step"] == answer["lost_at"]["index"] + 1)
    assert answer["lost_at"]["proven"] is (after["status"] == "unsolvable")
    # (a later round gives a position still unknown four times the budget, and so on)
    assert after["nodes"] > 0 and after["budget"] >= int(BUDGET["ANALYSIS_POSITION_NODES"])
    lost_text = page.locator("#analysis-lost")
    shows_bound = not answer["lost_at"]["proven"] and answer["lost_by"] is not None
    expect(page.locator("#analysis-lost-by-mark")).to_have_count(1 if shows_bound else 0)
    if answer["lost_at"]["proven"]:
        expect(lost_text).to_contain_text(f"proven: {after['nodes']:,} positions searched")
        expect(lost_text).not_to_contain_text("as far as")
    else:
        expect(lost_text).to_contain_text("as far as the analysis could tell")
        expect(lost_text).to_contain_text(f"within its budget of {after['budget']:,} positions")
        if answer["lost_by"] is not None:  # the proven bound, after the unproven action
            bound = answer["lost_by"]["index"] + 1
            said = re.compile(rf"lost there or later, and by action {bound}, .* at the latest")
            expect(lost_text).to_contain_text(said)
    page.locator("#analysis-alt").click()
    board = page.locator("#analysis-board")
    expect(board.locator(".card").first).to_be_visible()
    expect(board.locator(".stock .badge")).to_have_text(re.compile(r"^[0-5]$"))
    before = board.inner_html()
    page.locator("#analysis-alt-next").click()
    expect(page.locator("#analysis-alt-step")).to_contain_text("1 of")
    assert board.inner_html() != before
    assert errors == []


def stored_analysis(attempt: int, positions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A done analysis as the API serves it (docs/api.md), for the page to draw."""
    counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
    for position in positions:
        counts[position["status"]] += 1
    return {
        "attempt": attempt,
        "status": "done",
        "planned": len(positions),
        "done": len(positions),
        "positions": positions,
        "lost_at": None,
        "lost_by": None,
        "alternative": [],
        "alternative_states": [],
        "saved": None,
        "worker_seconds": 1.5,
        "counts": counts,
        "created_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:02Z",
        **extra,
    }


@pytest.fixture
def plain_server(tmp_path: Path, daily: Daily) -> Iterator[Server]:
    server = start_server(tmp_path, {})
    try:
        yield server
    finally:
        stop_server(server)
        wait_for_server_sessions_to_end()


def test_the_page_says_a_deal_was_never_winnable_and_why_no_losing_action_was_found(
    plain_server: Server, browser: Any, daily: Daily
) -> None:
    """The page's words for the analyses no real game here produces (a whole deal proven
    lost, a budget that ran out): the analysis answer is set, the page is the real one."""
    attempt = lost_game(daily)
    close_the_day(daily)
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    answers: list[dict[str, Any]] = []

    def answer(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answers[-1]))

    page.route(re.compile(rf"/api/v1/attempts/{attempt}/analysis/$"), answer)
    never = stored_analysis(
        attempt,
        [
            {
                "step": 0,
                "status": "unsolvable",
                "moves_to_win": None,
                "nodes": 4321,
                "budget": 20000,
            },
            {
                "step": 110,
                "status": "unsolvable",
                "moves_to_win": None,
                "nodes": 9,
                "budget": 20000,
            },
        ],
    )
    unknown = stored_analysis(
        attempt,
        [
            {"step": 0, "status": "unknown", "moves_to_win": None, "nodes": 40000, "budget": 20000},
            {
                "step": 110,
                "status": "unsolvable",
                "moves_to_win": None,
                "nodes": 987,
                "budget": 20000,
            },
        ],
        lost_by={"index": 109, "action": "deal", "nodes": 987},
    )
    lost = page.locator("#analysis-lost")
    answers.append(never)
    sign_in(page, plain_server.url, "loser", f"/replay/{attempt}/")
    page.wait_for_selector("#replay[data-ready='true']")
    expect(lost).to_have_text("This deal was never winnable (proven: 4,321 positions searched).")
    expect(page.locator("#analysis-lost-mark")).to_have_count(0)
    expect(page.locator("#analysis-lost-by-mark")).to_have_count(0)
    answers.append(unknown)
    page.reload()
    page.wait_for_selector("#replay[data-ready='true']")
    expect(lost).to_contain_text("No losing action was found: no win was found even from the deal")
    expect(lost).to_contain_text("within its budget of 20,000 positions")
    expect(lost).not_to_contain_text("never winnable")
    # a later position proven lost: a proven bound on where the game was lost
    bound = r"After action 110, .*no win existed \(proven: 987 positions searched\)\.$"
    expect(lost).to_contain_text(re.compile(bound))
    mark = page.locator("#analysis-lost-by-mark")  # and on the chart, dashed
    expect(mark).to_have_count(1)
    expect(mark.locator("title")).to_have_text("proven lost after action 110")
    # an unproven losing action, a win found just before it: the bound closes the bracket
    budget = 20000
    bracketed = {
        **unknown,
        "positions": [
            {"step": 0, "status": "solved", "moves_to_win": 120, "nodes": 900, "budget": budget},
            {"step": 30, "status": "solved", "moves_to_win": 95, "nodes": 800, "budget": budget},
            {"step": 31, "status": "unknown", "moves_to_win": None, "nodes": 1, "budget": budget},
            unknown["positions"][-1],
        ],
        "lost_at": {"index": 30, "action": "deal", "proven": False},
    }
    answers.append(bracketed)
    page.reload()
    page.wait_for_selector("#replay[data-ready='true']")
    unproven = "as far as the analysis could tell: no win was found after action 31"
    expect(lost).to_contain_text(unproven)
    bracket = (
        r"It was lost there or later, and by action 110, .*, at the latest: "
        r"after it no win existed \(proven: 987 positions searched\)\.$"
    )
    expect(lost).to_contain_text(re.compile(bracket))
    expect(page.locator("#analysis-lost-by-mark")).to_have_count(1)
    assert errors == []
