"""A connection that dies under an HTTP action post (PostgreSQL restarted, its backend
terminated) costs the player nothing: the door plays the batch once more on a fresh
connection, as it does on the play socket; a second failure is a 503 ``unavailable``."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient

from games.models import Attempt
from games.play import door
from tests.games.api_support import client_for, solution_of, todays_challenge

pytestmark = pytest.mark.django_db(transaction=True)  # the door closes the connection


def failing(times: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """attempt_push_actions fails ``times`` times as a dead connection does, then plays."""
    real = door.attempt_push_actions
    calls: list[int] = []

    def push(**kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= times:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(door, "attempt_push_actions", push)
    return calls


def started() -> tuple[APIClient, int, list[str]]:
    from tests.factories import make_player

    challenge = todays_challenge()
    client = client_for(make_player())
    attempt = client.post(f"/api/v1/challenges/{challenge.pk}/start/").json()
    return client, int(attempt["id"]), solution_of(challenge.deal)


def test_a_post_whose_connection_died_is_played_again_on_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, attempt_id, line = started()
    calls = failing(1, monkeypatch)

    answer = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": 0, "actions": line[:3]},
        format="json",
    )

    assert answer.status_code == 200, answer.content
    assert answer.json()["offset"] == 3 and len(calls) == 2
    assert list(Attempt.objects.get(pk=attempt_id).log) == line[:3]


def test_a_second_failure_is_a_503_unavailable_with_nothing_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, attempt_id, line = started()
    failing(2, monkeypatch)

    answer = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": 0, "actions": line[:3]},
        format="json",
    )

    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "unavailable"
    assert Attempt.objects.get(pk=attempt_id).log == []
