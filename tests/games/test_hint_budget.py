"""Hints in practice are limited per game, not per minute: a player asking one after another
is never throttled; a game has ``HINTS_PER_GAME`` hints, then a refusal in plain words; a
program asking without pause still meets the rate limit."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from config.env import ENVIRONMENT_VARIABLES
from games.models import Attempt, Deal
from tests.factories import make_player
from tests.games.api_support import client_for, solved_deal

pytestmark = pytest.mark.django_db


def start_practice(client: APIClient) -> int:
    solved_deal(pool=Deal.Pool.PRACTICE)
    response = client.post("/api/v1/practice/start/", {"variant": "spider1"}, format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def hint(client: APIClient, attempt_id: int) -> Any:
    return client.get(f"/api/v1/attempts/{attempt_id}/hint/")


@pytest.fixture
def real_hint_rate(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every rate as shipped (the other games tests run with generous ones); the hints'."""
    rates = {
        scope: str(ENVIRONMENT_VARIABLES[f"THROTTLE_{scope.upper()}"].default)
        for scope in ScopedRateThrottle.THROTTLE_RATES
    }
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    return rates["practice_hints"]


def test_sixty_hints_asked_one_after_another_are_all_answered(real_hint_rate: str) -> None:
    client = client_for(make_player())
    attempt_id = start_practice(client)
    answers = [hint(client, attempt_id) for _ in range(60)]
    assert [answer.status_code for answer in answers] == [200] * 60
    assert [answer.json()["hints_left"] for answer in answers] == list(range(99, 39, -1))
    assert Attempt.objects.get(pk=attempt_id).hints_used == 60


def test_a_game_past_its_hints_is_told_in_plain_words(settings: Any) -> None:
    settings.HINTS_PER_GAME = 3
    client = client_for(make_player())
    attempt_id = start_practice(client)
    assert [hint(client, attempt_id).status_code for _ in range(3)] == [200] * 3
    refused = hint(client, attempt_id)
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "hint_budget_spent"
    assert error["message"] == "You have used this game's 3 hints."
    assert error["details"] == {"hints_per_game": 3}
    assert Attempt.objects.get(pk=attempt_id).hints_used == 3
    # Another game has hints of its own.
    client.post(f"/api/v1/attempts/{attempt_id}/resign/")
    again = client.post("/api/v1/practice/start/", {"variant": "spider1"}, format="json")
    assert again.status_code == 201, again.content
    assert again.json()["id"] != attempt_id
    assert hint(client, again.json()["id"]).json()["hints_left"] == 2


def test_a_program_asking_without_pause_meets_the_rate_limit(
    real_hint_rate: str, settings: Any
) -> None:
    settings.HINTS_PER_GAME = 10_000
    limit = int(real_hint_rate.split("/")[0])
    client = client_for(make_player())
    attempt_id = start_practice(client)
    codes = [hint(client, attempt_id).status_code for _ in range(limit + 5)]
    assert 429 in codes
    assert codes.index(429) >= limit - 1  # not before the rate's worth of asks
    assert Attempt.objects.get(pk=attempt_id).hints_used == codes.count(200)
