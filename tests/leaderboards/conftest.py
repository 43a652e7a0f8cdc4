"""Rows for the leaderboard tests, made directly (the attempts API is not needed).

Like the services, these factories move the board counts with every write that changes a
board (games/services/board_counts.py; the counts themselves are tested with the real
services in tests/games/test_board_counts.py)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from core.live import wait_idle
from games import signals
from games.models import Attempt, DailyChallenge
from games.services.board_counts import board_counts_follow, board_key
from tests.conftest import LIVE_SETTLE_SECONDS
from tests.factories import make_player

BASE = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)


def make_attempt(
    challenge: DailyChallenge,
    player: Any,
    *,
    score: int | None = 100,
    elapsed: float = 60.0,
    ended_at: dt.datetime | None = BASE,
    won: bool = False,
    voided: bool = False,
    kind: str = Attempt.Kind.RANKED,
    runs: int = 0,
    turned: int = 0,
    actions: int = 40,
    deals_left: int = 5,
) -> Attempt:
    finished = ended_at is not None
    attempt = Attempt.objects.create(
        player=player,
        deal=challenge.deal,
        challenge=challenge,
        kind=kind,
        started_at=(ended_at or BASE) - dt.timedelta(seconds=elapsed),
        ended_at=ended_at,
        last_action_at=ended_at or BASE,
        end_reason=(Attempt.EndReason.WON if won else Attempt.EndReason.RESIGNED)
        if finished
        else "",
        score=score if finished else None,
        elapsed_seconds=elapsed if finished else None,
        won=won,
        voided=voided,
        runs_completed=runs,
        cards_turned_up=turned,
        action_count=actions,
        deals_left=deals_left,
        log=["t1-c1"] * actions,
    )
    board_counts_follow(None, attempt)
    return attempt


def _send_on_commit(signal: Any, attempt: Attempt) -> None:
    transaction.on_commit(
        lambda: signal.send(
            sender=Attempt, attempt_id=attempt.pk, challenge_id=attempt.challenge_id
        )
    )


def finish(attempt: Attempt, *, score: int, elapsed: float = 60.0, won: bool = False) -> Attempt:
    """What the attempts service does at the end of a game: write, commit, then signal."""
    with transaction.atomic():
        counted_as = board_key(attempt)
        attempt.ended_at = timezone.now()
        attempt.score = score
        attempt.elapsed_seconds = elapsed
        attempt.won = won
        attempt.end_reason = Attempt.EndReason.WON if won else Attempt.EndReason.RESIGNED
        attempt.save()
        board_counts_follow(counted_as, attempt)
        _send_on_commit(signals.attempt_finished, attempt)
    return attempt


def progress(attempt: Attempt, *, runs: int, actions: int, deals_left: int) -> Attempt:
    with transaction.atomic():
        attempt.runs_completed = runs
        attempt.action_count = actions
        attempt.deals_left = deals_left
        attempt.save()
        _send_on_commit(signals.attempt_progressed, attempt)
    return attempt


def void(attempt: Attempt) -> Attempt:
    with transaction.atomic():
        counted_as = board_key(attempt)
        attempt.voided = True
        attempt.voided_at = timezone.now()
        attempt.void_reason = "too fast"
        attempt.save()
        board_counts_follow(counted_as, attempt)
        _send_on_commit(signals.attempt_voided, attempt)
    return attempt


@pytest_asyncio.fixture
async def no_connection_left_in_the_sync_thread() -> AsyncIterator[None]:
    """database_sync_to_async runs in asgiref's shared thread; leave no connection there for
    the next (maybe not database-enabled) test to trip over."""
    yield
    await asyncio.to_thread(wait_idle, LIVE_SETTLE_SECONDS)  # the pushes' reads, on this loop
    await database_sync_to_async(_close_connections)()


def _close_connections() -> None:
    # SQLite's close() keeps an in-memory test database open; the next test, perhaps without
    # database access, would find it in close_old_connections(). The main thread's own
    # connection keeps the shared in-memory database alive.
    for wrapper in connections.all(initialized_only=True):
        BaseDatabaseWrapper.close(wrapper)


@pytest.fixture(autouse=True)
def _channel_layer_of_this_worker(settings: Any) -> None:
    """xdist workers share one Redis: give each its own key prefix (groups, windows)."""
    layer = settings.CHANNEL_LAYERS["default"]
    if "Redis" in layer["BACKEND"]:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        settings.CHANNEL_LAYERS = {
            "default": {**layer, "CONFIG": {**layer["CONFIG"], "prefix": f"asgi-test-{worker}"}}
        }


@pytest.fixture
def user_factory() -> Callable[[str], Any]:
    return make_player
