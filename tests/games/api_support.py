"""Fixtures and helpers shared by the attempt and API tests (imported by those modules)."""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from games import engine
from games.models import DailyChallenge, Deal
from games.services.deals import deal_create, deal_schedule, deal_verify
from tests.games.conftest import QUICK_SEED, QUICK_VARIANT

_names = itertools.count(1)

GENEROUS_RATES = {
    "signup": "1000/min",
    "login": "1000/min",
    "actions": "10000/min",
    "hints": "1000/min",
}


@pytest.fixture(autouse=True)
def fresh_throttles(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A cache of its own for every test (no counts carried over), and rates tests won't hit."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-{uuid.uuid4()}",
        }
    }
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", dict(GENEROUS_RATES))
    yield


def make_player(name: str | None = None) -> Any:
    username = name or f"player{next(_names)}"
    return get_user_model().objects.create_user(username=username, password="x-Long-pass-9")


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def solved_deal(pool: str = Deal.Pool.DAILY, seed: int = QUICK_SEED) -> Deal:
    deal = deal_create(variant=QUICK_VARIANT, seed=seed, pool=pool)
    deal = deal_verify(deal_id=deal.pk, seconds=20.0)
    assert deal.status == Deal.Status.VERIFIED, deal.last_error
    return deal


def todays_challenge(seed: int = QUICK_SEED) -> DailyChallenge:
    return deal_schedule(deal=solved_deal(seed=seed), date=timezone.now().date())


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
