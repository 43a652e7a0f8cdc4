"""What the hint tests share: a practice game started, a hint asked, a game started off its
solution's line."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from games import engine
from games.models import Attempt, Deal
from tests.games.api_support import solution_of, solved_deal


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


def start_off_the_solution(client: APIClient) -> tuple[int, engine.Board]:
    """A practice game whose first action is not the solution's: (attempt id, position)."""
    attempt_id, solution = start_practice(client)
    deal = Attempt.objects.get(pk=attempt_id).deal
    board = engine.Board.deal(deal.variant, deal.seed_int)
    detour = next(a for a in board.legal_actions() if a not in (solution[0], "deal"))
    play(client, attempt_id, 0, detour)
    board.push_text(detour)
    return attempt_id, board
