from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from games.models import Deal
from rooms.models import COUNTDOWN_SECONDS, Room
from tests.factories import make_player, verified_deal

API = "/api/v1"
# The practice deals of these tests (stored winning lines in tests/data/solutions.json).
PRACTICE_SEEDS = (1, 2)


@pytest.fixture(autouse=True)
def _fresh_throttles(fresh_throttles: None) -> None:
    """Every rooms test gets its own throttle counts (tests/conftest.py)."""


@pytest.fixture
def practice_deals() -> list[Deal]:
    return [verified_deal("spider1", seed, pool=Deal.Pool.PRACTICE) for seed in PRACTICE_SEEDS]


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client: Client, path: str, body: Any = None) -> Any:
    return client.post(f"{API}/{path}", json.dumps(body or {}), content_type="application/json")


def open_room(client: Client, **fields: Any) -> dict[str, Any]:
    body = {"variant": "spider1", "seats": 2, "time_limit_minutes": 5, **fields}
    answer = post(client, "rooms/", body)
    assert answer.status_code == 201, answer.content
    return dict(answer.json())


def racers(*names: str) -> list[tuple[Any, Client]]:
    return [(player, signed_in(player)) for player in (make_player(name) for name in names)]


def started_room(clients: list[Client], **fields: Any) -> dict[str, Any]:
    """A room of these players (the first hosts), all ready: the race is counting down."""
    room = open_room(clients[0], seats=max(2, len(clients)), **fields)
    for client in clients[1:]:
        assert post(client, f"rooms/{room['code']}/join/").status_code == 200
    for client in clients:
        answer = post(client, f"rooms/{room['code']}/ready/")
        assert answer.status_code == 200, answer.content
    return dict(answer.json())


@pytest.fixture
def after_the_start() -> Iterator[Any]:
    """Call with a room's code: the clock moves past its start signal (and on, ticking)."""
    travellers: list[Any] = []

    def travel(code: str, seconds: float = 0.1) -> None:
        starts_at = Room.objects.get(code=code).starts_at
        assert starts_at is not None
        traveller = time_machine.travel(starts_at + dt.timedelta(seconds=seconds), tick=True)
        traveller.start()
        travellers.append(traveller)

    yield travel
    for traveller in reversed(travellers):
        traveller.stop()


def countdown_ok(room: dict[str, Any]) -> bool:
    starts = dt.datetime.fromisoformat(room["starts_at"])
    now = dt.datetime.fromisoformat(room["server_now"])
    return abs((starts - now).total_seconds() - COUNTDOWN_SECONDS) < 1.0 and now <= timezone.now()
