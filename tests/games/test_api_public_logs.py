"""After the day: every counted game is public, so anyone can re-deal and re-check scores."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.utils import timezone

from games import engine
from games.models import DailyChallenge
from games.services.attempts import attempt_push_actions, attempt_resign, attempt_start_ranked
from tests.factories import make_player
from tests.games.api_support import (
    client_for,
    solution_of,
    todays_challenge,
)

pytestmark = pytest.mark.django_db


def test_logs_stay_private_while_the_day_is_open() -> None:
    challenge = todays_challenge()
    response = client_for(make_player()).get(f"/api/v1/challenges/{challenge.pk}/attempts/")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "day_not_over"


def test_after_the_day_anyone_can_re_deal_and_re_check_every_score() -> None:
    challenge = todays_challenge()
    winner, quitter = make_player("winner"), make_player("quitter")
    solution = solution_of(challenge.deal)
    won, _ = attempt_start_ranked(player=winner, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=won.pk, player=winner, offset=0, actions=solution)
    lost, _ = attempt_start_ranked(player=quitter, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=lost.pk, player=quitter, offset=0, actions=solution[:5])
    attempt_resign(attempt_id=lost.pk, player=quitter)
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )

    anyone = client_for(make_player("checker"))
    public = anyone.get(f"/api/v1/challenges/{challenge.pk}/attempts/").json()
    revealed = anyone.get(f"/api/v1/challenges/{challenge.pk}/").json()["revealed"]
    seed, nonce = int(revealed["seed"]), revealed["nonce"]
    commitment = hashlib.sha256(f"{challenge.variant}:{seed}:{nonce}".encode()).hexdigest()
    assert commitment == challenge.deal.commitment

    assert [row["username"] for row in public["attempts"]] == ["winner", "quitter"]
    for row in public["attempts"]:
        result = engine.replay(challenge.variant, seed, row["log"])
        assert result.ok
        assert row["elapsed_seconds"] == pytest.approx(row["action_times"][-1], abs=1e-3)
        rechecked = engine.score(len(row["log"]), row["elapsed_seconds"], result.board)
        assert rechecked == row["score"]
        assert row["won"] == result.won
    assert public["attempts"][0]["won"] and not public["attempts"][1]["won"]
