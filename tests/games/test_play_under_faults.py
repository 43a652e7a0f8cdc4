"""Playing through faults: Redis stopped and restarted, PostgreSQL's connections killed.

The issue's operator drove 20 players through such faults on the production stack; what
held then must keep holding, and what failed (HTML 500s from the rate limits while Redis
was down, 500s from stale pooled connections after a PostgreSQL restart) must not come
back. One player posts the deal's winning line two actions at a time, each request served
as the server serves it (its connection from the pool and back), while a redis-server of
the test's own (the rate limits' counters and the live channel layer) is stopped and
started again, and PostgreSQL terminates every pooled connection twice (the play socket's
threads hold theirs). Every post must be answered 200, and the stored log must be exactly
the acknowledged actions: over HTTP and over the play socket.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from django.db import close_old_connections
from django.test import Client
from rest_framework.authtoken.models import Token

from games.models import Attempt
from tests.database_support import terminate_other_connections
from tests.factories import make_player
from tests.games.api_support import solution_of, todays_challenge
from tests.own_redis import OwnRedis, own_redis

__all__ = ["own_redis"]

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BATCH = 2


@pytest.fixture
def on_own_redis(own_redis: OwnRedis, settings: Any) -> OwnRedis:
    settings.CACHES = {
        "default": {
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": f"test-faults-{uuid.uuid4()}",
        }
    }
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "core.live.PubSubChannelLayer",
            "CONFIG": {"hosts": [own_redis.url], "prefix": f"faults-{uuid.uuid4().hex[:8]}"},
        }
    }
    return own_redis


class SocketPlayer:
    """The player's actions over its play socket (ws/attempts/<id>/play/), in this process,
    driven from this synchronous test on an event loop of its own."""

    def __init__(self, attempt_id: int, token: str) -> None:
        from channels.testing import WebsocketCommunicator

        from config.asgi import application

        self.loop = asyncio.new_event_loop()
        self.socket = WebsocketCommunicator(
            application,
            f"/ws/attempts/{attempt_id}/play/",
            [(b"authorization", f"Token {token}".encode())],
        )
        connected, _ = self.run(self.socket.connect(timeout=10))
        assert connected
        assert self.run(self.socket.receive_json_from(timeout=10))["type"] == "ready"
        self.sent = 0

    def run(self, awaitable: Any) -> Any:
        return self.loop.run_until_complete(awaitable)

    def post(self, body: dict[str, Any]) -> tuple[int, Any]:
        self.sent += 1
        self.run(self.socket.send_json_to({"type": "actions", "id": self.sent, **body}))
        answer = self.run(self.socket.receive_json_from(timeout=30))
        assert answer["id"] == self.sent
        return answer["status"], answer["body"]

    def close(self) -> None:
        from games.api.play_threads import release_connections

        self.run(self.socket.disconnect())
        release_connections()
        self.loop.close()


PLAYERS: dict[str, type[SocketPlayer]] = {"socket": SocketPlayer}


@pytest.mark.parametrize("transport", ["http", "socket"])
def test_no_5xx_and_no_acknowledged_action_lost_through_redis_and_postgres_faults(
    on_own_redis: OwnRedis, transport: str
) -> None:
    challenge = todays_challenge()
    player = make_player()
    token = Token.objects.create(user=player)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")

    def served(method: str, path: str, body: Any = None) -> Any:
        close_old_connections()
        try:
            if method == "POST":
                return client.post(path, body, content_type="application/json")
            return client.get(path)
        finally:
            close_old_connections()

    started = served("POST", f"/api/v1/challenges/{challenge.pk}/start/")
    assert started.status_code == 201
    attempt_id = started.json()["id"]
    line = solution_of(Attempt.objects.get(pk=attempt_id).deal)
    socket = PLAYERS[transport](attempt_id, token.key) if transport in PLAYERS else None

    def post(body: dict[str, Any]) -> int:
        if socket is not None:
            return int(socket.post(body)[0])
        return int(served("POST", f"/api/v1/attempts/{attempt_id}/actions/", body).status_code)

    faults = {
        3: on_own_redis.stop,
        6: terminate_other_connections,
        9: on_own_redis.start,
        12: terminate_other_connections,
    }
    acknowledged: list[str] = []
    statuses: list[int] = []
    step = 0
    try:
        while len(acknowledged) + BATCH <= len(line) and step < 16:
            if step in faults:
                faults[step]()
            batch = line[len(acknowledged) : len(acknowledged) + BATCH]
            status = post({"offset": len(acknowledged), "actions": batch})
            statuses.append(status)
            if status == 200:
                acknowledged += batch
            step += 1
    finally:
        if socket is not None:
            socket.close()
    assert statuses == [200] * len(statuses), statuses
    assert len(acknowledged) >= 2 * 12
    detail = served("GET", f"/api/v1/attempts/{attempt_id}/")
    assert detail.status_code == 200
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.action_count == len(acknowledged)
    assert [str(action) for action in attempt.log] == acknowledged
