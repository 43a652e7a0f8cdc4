"""What the hint tests share: a practice game started, a hint asked, a game one move off its
solution's line, and one off it beyond the step back that needs no search."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.test import APIClient

from bench.lost_games_bench import lost_game
from games import engine
from games.models import Attempt, Deal
from games.services.hint_lines import rejoin
from tests.games.api_support import solution_of, solved_deal

# A hint's search in the tests is bounded in positions (HINT_NODES), never by the clock: its
# time limit is one no search reaches, so a loaded machine gets the same answer.
NO_TIME_LIMIT = 600.0
NO_SEARCH = 1  # HINT_NODES: a search of one position finds nothing; a hint then came from a line


def search_budget(settings: Any, nodes: int | None = None) -> None:
    """Hint searches of at most ``nodes`` positions (the product's HINT_NODES when None),
    with no time limit in reach."""
    settings.HINT_SECONDS = NO_TIME_LIMIT
    if nodes is not None:
        settings.HINT_NODES = nodes


def start_practice(client: APIClient) -> tuple[int, list[str]]:
    deal = solved_deal(pool=Deal.Pool.PRACTICE)
    response = client.post("/api/v1/practice/start/", {"variant": deal.variant}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"], solution_of(deal)


def hint(client: APIClient, attempt_id: int) -> Any:
    return client.get(f"/api/v1/attempts/{attempt_id}/hint/")


def play(client: APIClient, attempt_id: int, offset: int, action: str) -> None:
    response = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": offset, "actions": [action]},
        format="json",
    )
    assert response.status_code == 200, response.content


def start_one_move_off(client: APIClient) -> tuple[int, list[str], engine.Board]:
    """A practice game whose first action is not the solution's: (attempt id, the deal's
    solution, the position)."""
    attempt_id, solution = start_practice(client)
    deal = Attempt.objects.get(pk=attempt_id).deal
    board = engine.Board.deal(deal.variant, deal.seed_int)
    detour = next(a for a in board.legal_actions() if a not in (solution[0], "deal"))
    play(client, attempt_id, 0, detour)
    board.push_text(detour)
    return attempt_id, solution, board


def start_off_the_solution(client: APIClient) -> tuple[int, engine.Board]:
    """A practice game played off its solution's line (``off_the_solution``): a hint there
    needs the solver. Returns (attempt id, position); the game's log is ``len(board)``
    actions long."""
    attempt_id, solution = start_practice(client)
    deal = Attempt.objects.get(pk=attempt_id).deal
    board = engine.Board.deal(deal.variant, deal.seed_int)
    for detour in off_the_solution(deal, solution):
        play(client, attempt_id, len(board), detour)
        board.push_text(detour)
    return attempt_id, board


def start_where_a_deal_waits(client: APIClient) -> tuple[int, engine.Board]:
    """The reference player's Spider 1 suit game of deal 3 (``bench.lost_games_bench``),
    played to its end: every card face up, a deal left in the stock and two columns empty,
    so no deal is allowed. Returns (attempt id, position)."""
    deal = solved_deal(pool=Deal.Pool.PRACTICE, seed=3)
    response = client.post("/api/v1/practice/start/", {"variant": deal.variant}, format="json")
    assert response.status_code == 201, response.content
    attempt_id = response.json()["id"]
    log = lost_game(deal.variant, 3)
    batch = settings.ACTIONS_MAX_BATCH
    for offset in range(0, len(log), batch):
        answer = client.post(
            f"/api/v1/attempts/{attempt_id}/actions/",
            {"offset": offset, "actions": log[offset : offset + batch]},
            format="json",
        )
        assert answer.status_code == 200, answer.content
    board = engine.replay(deal.variant, 3, log).board
    assert board.refusal(engine.Move.parse("deal")) is not None
    assert not any(board.state()["face_down"])
    return attempt_id, board


def off_the_solution(deal: Deal, solution: list[str]) -> list[str]:
    """Actions from the deal off its solution's line until no short step leads back onto it
    (``hint_lines.rejoin`` finds none)."""
    start = engine.Board.deal(deal.variant, deal.seed_int)
    board = start.copy()
    played: list[str] = []
    while rejoin(board, start, [solution]) is not None:
        detour = next(a for a in board.legal_actions() if a not in ("undo", "deal", *solution[:12]))
        board.push_text(detour)
        played.append(detour)
    return played
