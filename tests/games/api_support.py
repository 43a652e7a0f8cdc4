"""Helpers shared by the attempt and API tests (the factories are tests/factories.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from games import engine
from games.models import Attempt, DailyChallenge, Deal
from games.services.deals import deal_schedule
from tests.factories import verified_deal
from tests.games.conftest import QUICK_SEED, QUICK_VARIANT


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def solved_deal(pool: str = Deal.Pool.DAILY, seed: int = QUICK_SEED) -> Deal:
    """A verified deal of the quick variant (its stored winning line: tests/factories.py)."""
    return verified_deal(QUICK_VARIANT, seed, pool)


def todays_challenge(seed: int = QUICK_SEED) -> DailyChallenge:
    return deal_schedule(deal=solved_deal(seed=seed), date=timezone.now().date())


def noon_of(challenge: DailyChallenge) -> dt.datetime:
    """Noon (UTC) of the challenge's day: a clock for a test whose game lasts minutes, which
    started at the wall clock's time would cross midnight when run just before 00:00 UTC."""
    return dt.datetime.combine(challenge.date, dt.time(12), tzinfo=dt.UTC)


def past_challenge(days_ago: int = 1, seed: int = QUICK_SEED) -> DailyChallenge:
    """A challenge dated in the past (deal_schedule refuses past dates: build it directly)."""
    deal = solved_deal(seed=seed)
    return DailyChallenge.objects.create(
        date=timezone.now().date() - dt.timedelta(days=days_ago), variant=deal.variant, deal=deal
    )


def past_challenge_of(challenge: DailyChallenge, days_ago: int = 1) -> DailyChallenge:
    """The same challenge, its day moved into the past: as if the day had closed."""
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=days_ago)
    )
    return DailyChallenge.objects.select_related("deal").get(pk=challenge.pk)


def visible_cards_ok(response_state: dict[str, Any], board: engine.Board) -> None:
    """Every card a response shows is one the engine's view of the same position shows."""
    view = engine.board_view(board)
    assert response_state == view


def hidden_cards(board: engine.Board) -> list[str]:
    state = engine.board_state(board)
    cards = list(state["stock"])
    for column, down in zip(state["tableau"], state["face_down"], strict=True):
        cards += column[:down]
    return cards


def solution_of(deal: Deal) -> list[str]:
    """The deal's stored winning line (verified deals have one)."""
    assert deal.solution, f"deal {deal.pk} has no solution"
    return [str(action) for action in deal.solution]


def playing(challenge: DailyChallenge, actions: int) -> tuple[Any, Attempt]:
    """A new player's ranked attempt at ``challenge``, open after the first ``actions``
    actions of the deal's solution (through the services)."""
    from games.services.attempts import attempt_push_actions, attempt_start_ranked
    from tests.factories import make_player

    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    line = solution_of(challenge.deal)[:actions]
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=line)
    return player, attempt


def post_actions(client: APIClient, attempt_id: int, offset: int, actions: Any) -> Any:
    return client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": offset, "actions": actions},
        format="json",
    )


def board_after(deal: Deal, actions: list[str]) -> engine.Board:
    board = engine.Board.deal(deal.variant, deal.seed_int)
    assert engine.replay_on(board, actions).ok
    return board


def safe_prefix(variant: str, seed: int, line: list[str]) -> int:
    """The first k such that the deal after line[:k] is safe to finish and not yet won
    (the auto-complete tests, and the browser test of the Finish button)."""
    from games.services.autocomplete import safe_to_finish

    board = engine.Board.deal(variant, seed)
    for k, action in enumerate(line):
        if safe_to_finish(board) and not board.is_won:
            return k
        board.play(action)
    raise AssertionError("the line never reaches a safe position before the win")
