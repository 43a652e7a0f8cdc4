"""The play socket opens through a PostgreSQL restart.

Each play thread holds its database connection between uses (games/api/play_threads.py).
A restart (here: ``pg_terminate_backend`` of every connection to the test database, what
a restart does to them) leaves each thread holding a dead one. The handshake reads the
stored offset on it: before, that read had no second try, and the handshake died without
a close frame (1006, a traceback in the log). Now it is read once more on a fresh
connection; if that fails too the socket is closed 4503 ``unavailable``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError, connection, connections
from rest_framework.authtoken.models import Token

from config.asgi import application
from games.api import play_socket
from games.api.play_threads import on_every_play_thread, release_connections
from tests.database_support import terminate_other_connections
from tests.factories import make_player
from tests.games.api_support import todays_challenge

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        release_connections()
        # The token's lookup ran in asgiref's one thread-sensitive thread: its connection too.
        loop.run_until_complete(database_sync_to_async(connections.close_all)())
        loop.close()


def handshake(loop: asyncio.AbstractEventLoop, attempt_id: int, token: str) -> list[Any]:
    """What the client hears on connecting: the messages, then ("closed", code) if closed."""
    socket = WebsocketCommunicator(
        application,
        f"/ws/attempts/{attempt_id}/play/",
        [(b"authorization", f"Token {token}".encode())],
    )

    async def talk() -> list[Any]:
        connected, _ = await socket.connect(timeout=10)
        assert connected
        heard: list[Any] = []
        while True:
            output = await socket.receive_output(timeout=10)
            if output["type"] == "websocket.close":
                heard.append(("closed", output.get("code")))
                await socket.wait(timeout=10)
                return heard
            heard.append(output["text"])
            if '"ready"' in output["text"]:
                await socket.disconnect()
                return heard

    return loop.run_until_complete(talk())


def started_attempt() -> tuple[int, str]:
    from django.test import Client

    player = make_player()
    token = Token.objects.create(user=player).key
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    started = client.post(f"/api/v1/challenges/{todays_challenge().pk}/start/")
    assert started.status_code == 201
    return int(started.json()["id"]), token


def hold_a_connection() -> None:
    connection.ensure_connection()  # each play thread holds one, as after a batch


def test_a_handshake_after_a_restart_is_answered_ready(loop: asyncio.AbstractEventLoop) -> None:
    attempt_id, token = started_attempt()
    on_every_play_thread(hold_a_connection)
    assert terminate_other_connections() >= 2  # the play threads' connections among them
    connection.close()  # this thread's, killed too: the next query opens a fresh one
    # Whichever thread takes each handshake holds a dead connection (the first ones at least).
    for _ in range(3):
        heard = handshake(loop, attempt_id, token)
        assert len(heard) == 1 and '"ready"' in heard[0] and '"offset": 0' in heard[0], heard


def test_a_database_that_stays_away_closes_the_handshake_4503(
    loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempt_id, token = started_attempt()

    def unreachable(*args: Any) -> Any:
        raise OperationalError("connection failed: Connection refused")

    monkeypatch.setattr(play_socket, "attempt_for_player", unreachable)
    heard = handshake(loop, attempt_id, token)
    assert heard[-1] == ("closed", 4503), heard
    assert '"unavailable"' in heard[0], heard
