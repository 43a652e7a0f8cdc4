"""Replays: the position after k actions of a finished attempt (the owner's at once,
anyone's once the day is over) and of a closed day's solution, computed by the engine."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import engine
from games.models import Attempt, DailyChallenge, Deal
from games.services.attempts import (
    attempt_push_actions,
    attempt_resign,
    attempt_start_practice,
    attempt_start_ranked,
)
from tests.factories import make_player
from tests.games.api_support import (
    client_for,
    playing,
    solution_of,
    solved_deal,
    todays_challenge,
)
from tests.games.conftest import QUICK_LONG_SEED

pytestmark = pytest.mark.django_db


def close_day(challenge: DailyChallenge) -> None:
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )


def expected_state(
    challenge: DailyChallenge, log: list[str], step: int, *, whole: bool = True
) -> dict[str, Any]:
    """The engine's own replay of the first ``step`` actions, independently of the API: the
    whole position, or the player's view of it."""
    result = engine.replay(challenge.variant, challenge.deal.seed_int, log[:step])
    assert result.ok
    return engine.board_state(result.board) if whole else engine.board_view(result.board)


def no_secrets(response: Any, challenge: DailyChallenge) -> None:
    text = response.content.decode()
    assert str(challenge.deal.seed_int) not in text
    assert challenge.deal.nonce not in text
    assert '"seed"' not in text and '"nonce"' not in text


def test_the_owner_steps_through_a_finished_game_up_to_its_final_position() -> None:
    challenge = todays_challenge(seed=QUICK_LONG_SEED)
    player = make_player()
    solution = solution_of(challenge.deal)
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=solution)
    attempt.refresh_from_db()
    assert attempt.is_over and attempt.won
    client = client_for(player)
    steps = len(solution)
    url = f"/api/v1/attempts/{attempt.pk}/replay/"

    first = client.get(url)  # no step: the deal
    assert first.status_code == 200
    assert first.json()["step"] == 0 and first.json()["action"] is None
    assert first.json()["time"] is None
    for step in range(steps + 1):
        response = client.get(url, {"step": step})
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["step"] == step and body["steps"] == steps
        assert body["attempt_id"] == attempt.pk and body["challenge_id"] == challenge.pk
        assert body["action"] == (solution[step - 1] if step else None)
        assert body["time"] == (pytest.approx(attempt.action_times[step - 1]) if step else None)
        # The day is still open: each position as the player saw it, hidden cards null.
        assert body["state"] == expected_state(challenge, solution, step, whole=False)
        assert body["cards_revealed"] is False
        no_secrets(response, challenge)

    last = body
    final = client.get(f"/api/v1/attempts/{attempt.pk}/").json()
    assert last["won"] and last["state"]["won"] and last["runs_completed"] == 8
    assert last["deals_left"] == final["deals_left"] == 0
    assert last["state"]["foundations"] == final["state"]["foundations"]
    assert last["state"]["tableau"] == final["state"]["tableau"]
    assert first.json()["state"] == final["start_state"]

    close_day(challenge)  # then every position is whole, for everyone
    for step in (0, steps // 2):
        body = client.get(url, {"step": step}).json()
        assert body["state"] == expected_state(challenge, solution, step)
        assert body["cards_revealed"] is True
    assert client.get(f"/api/v1/attempts/{attempt.pk}/").json()["start_state"] == (
        expected_state(challenge, solution, 0)
    )


def test_an_open_attempt_has_no_replay_yet() -> None:
    player, attempt = playing(todays_challenge(), 3)
    response = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/replay/", {"step": 1})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "attempt_not_over"


def test_a_stranger_sees_a_game_only_once_the_day_is_over() -> None:
    challenge = todays_challenge(seed=QUICK_LONG_SEED)
    quitter = make_player("quitter")
    solution = solution_of(challenge.deal)
    attempt, _ = attempt_start_ranked(player=quitter, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=attempt.pk, player=quitter, offset=0, actions=solution[:5])
    attempt_resign(attempt_id=attempt.pk, player=quitter)
    url = f"/api/v1/attempts/{attempt.pk}/replay/"

    stranger, anonymous = client_for(make_player("stranger")), APIClient()
    for client in (stranger, anonymous):
        response = client.get(url, {"step": 2})
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
        no_secrets(response, challenge)
    assert client_for(quitter).get(url, {"step": 5}).status_code == 200

    close_day(challenge)
    for client in (stranger, anonymous):
        response = client.get(url, {"step": 2})
        assert response.status_code == 200
        assert response.json()["state"] == expected_state(challenge, solution, 2)
        assert response.json()["action"] == solution[1]
    assert client.get(url, {"step": 5}).json()["steps"] == 5
    assert client.get(url, {"step": 6}).status_code == 400

    Attempt.objects.filter(pk=attempt.pk).update(voided=True)
    assert stranger.get(url).status_code == 404
    assert client_for(quitter).get(url).status_code == 200  # still the owner's own game


def test_an_unfinished_game_of_a_closed_day_is_closed_then_replayed() -> None:
    challenge = todays_challenge()
    player = make_player()
    solution = solution_of(challenge.deal)
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=solution[:4])
    close_day(challenge)
    response = client_for(make_player()).get(f"/api/v1/attempts/{attempt.pk}/replay/?step=4")
    assert response.status_code == 200
    assert response.json()["steps"] == 4
    assert Attempt.objects.get(pk=attempt.pk).end_reason == Attempt.EndReason.DAY_CLOSED


def test_practice_games_and_unknown_ids_are_not_found_for_others() -> None:
    solved_deal(pool=Deal.Pool.PRACTICE)
    owner = make_player()
    attempt = attempt_start_practice(player=owner, variant=None)
    attempt_resign(attempt_id=attempt.pk, player=owner)
    url = f"/api/v1/attempts/{attempt.pk}/replay/"
    assert client_for(owner).get(url).status_code == 200
    assert client_for(make_player()).get(url).status_code == 404
    assert APIClient().get(url).status_code == 404
    assert client_for(owner).get("/api/v1/attempts/999999/replay/").status_code == 404


def test_the_solution_is_public_once_the_day_is_over_and_ends_won() -> None:
    challenge = todays_challenge(seed=QUICK_LONG_SEED)
    solution = solution_of(challenge.deal)
    url = f"/api/v1/challenges/{challenge.pk}/solution/"
    before = APIClient().get(url, {"step": 1})
    assert before.status_code == 403
    assert before.json()["error"]["code"] == "day_not_over"
    no_secrets(before, challenge)

    close_day(challenge)
    client = APIClient()
    for step in (0, 1, len(solution) // 2, len(solution)):
        response = client.get(url, {"step": step})
        assert response.status_code == 200
        body = response.json()
        assert body["steps"] == len(solution) and body["step"] == step
        assert body["action"] == (solution[step - 1] if step else None)
        assert body["time"] is None
        assert body["state"] == expected_state(challenge, solution, step)
    assert body["won"] and body["state"]["won"] and body["runs_completed"] == 8
    assert client.get("/api/v1/challenges/999999/solution/").status_code == 404


@pytest.mark.parametrize("step", ["-1", "x", "1.5", "99999"])
def test_a_bad_step_is_refused_saying_which(step: str) -> None:
    challenge = todays_challenge()
    player = make_player()
    solution = solution_of(challenge.deal)
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=solution)
    response = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/replay/", {"step": step})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_step"
    assert error["details"]["steps"] == len(solution)
    assert str(len(solution)) in error["message"]
    close_day(challenge)
    response = APIClient().get(f"/api/v1/challenges/{challenge.pk}/solution/", {"step": step})
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_step"
