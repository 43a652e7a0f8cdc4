"""Hints while Redis (the cache that remembers hint lines) is down: answered, not a 500.

A hint first looks for a line remembered in the cache; with Redis down that read raised
ConnectionError, a 500. Now a hint then follows the deal's solution or searches (the
line found is simply not remembered); with workers, a broker that cannot be reached is a
503 hints_busy (games/services/hints.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.dead_port import dead_port
from tests.factories import make_player
from tests.games.api_support import client_for
from tests.games.hints_support import hint, search_budget, start_off_the_solution, start_practice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tasks_in_process")]


@contextmanager
def the_cache_down(settings: Any) -> Iterator[None]:
    """The cache pointed at a Redis that does not answer (a port held, never listening)."""
    with dead_port() as port:
        settings.CACHES = {
            "default": {
                "BACKEND": "core.redis_cache.SharedRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
            }
        }
        yield


def test_a_hint_along_the_solution_is_answered_with_the_cache_down(
    settings: Any,
) -> None:
    client = client_for(make_player())
    attempt_id, solution = start_practice(client)
    with the_cache_down(settings):
        response = hint(client, attempt_id)
    assert response.status_code == 200, response.content
    assert response.json()["action"] == solution[0]


def test_a_hint_off_the_solution_is_searched_with_the_cache_down(settings: Any) -> None:
    client = client_for(make_player())
    attempt_id, board = start_off_the_solution(client)
    search_budget(settings)
    with the_cache_down(settings):
        response = hint(client, attempt_id)
    assert response.status_code == 200, response.content
    assert response.json()["action"] in board.legal_actions()
