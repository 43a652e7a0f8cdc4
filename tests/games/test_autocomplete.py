"""Auto-complete (POST attempts/<id>/autocomplete/): once every card is face up and the
stock dealt, the server plays the winning line as ordinary actions; before that, or for
someone else's attempt, a clear refusal and nothing played."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from games.models import Attempt
from tests.factories import make_player
from tests.games.api_support import client_for, safe_prefix, solution_of, todays_challenge

pytestmark = pytest.mark.django_db


def started(name: str) -> tuple[Any, Any, int, list[str]]:
    challenge = todays_challenge()
    player = make_player(name)
    client = client_for(player)
    attempt = client.post(f"/api/v1/challenges/{challenge.pk}/start/").json()
    return player, client, attempt["id"], solution_of(challenge.deal)


def test_a_safe_position_is_played_to_the_win_as_ordinary_actions() -> None:
    _, client, attempt_id, line = started("ada")
    deal = Attempt.objects.get(pk=attempt_id).deal
    k = safe_prefix(deal.variant, deal.seed_int, line)
    played = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/", {"offset": 0, "actions": line[:k]}, format="json"
    )
    assert played.status_code == 200
    answer = client.post(f"/api/v1/attempts/{attempt_id}/autocomplete/")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["won"] and body["over"] and body["runs_completed"] == 8
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.won and attempt.end_reason == Attempt.EndReason.WON
    assert attempt.log[:k] == line[:k] and len(attempt.log) == body["offset"] > k
    # the log replays to the win: anyone can check the score as for any game
    assert engine.replay(deal.variant, deal.seed_int, list(attempt.log)).board.is_won
    assert len(attempt.action_times) == len(attempt.log)


def test_before_every_card_is_up_nothing_is_played() -> None:
    _, client, attempt_id, _ = started("bo")
    answer = client.post(f"/api/v1/attempts/{attempt_id}/autocomplete/")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_safe"
    assert "every card is face up" in answer.json()["error"]["message"]
    assert Attempt.objects.get(pk=attempt_id).log == []


def test_someone_elses_or_an_ended_attempt_is_refused() -> None:
    _, client, attempt_id, _ = started("cy")
    other = client_for(make_player("eve"))
    answer = other.post(f"/api/v1/attempts/{attempt_id}/autocomplete/")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
    client.post(f"/api/v1/attempts/{attempt_id}/resign/")
    over = client.post(f"/api/v1/attempts/{attempt_id}/autocomplete/")
    assert over.status_code == 409 and over.json()["error"]["code"] == "attempt_over"
