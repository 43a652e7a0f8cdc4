"""One door for a played batch: an API client's action post, served by the ASGI
application as uvicorn hands it over, goes through Django's request handling (its request
signals, its middleware's headers) and the same door as the play socket (games/play/)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.core.signals import request_finished, request_started
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle

from config.asgi import application
from games.api.play_threads import release_connections
from games.models import Attempt
from games.services.attempts import attempt_start_ranked
from tests.factories import make_player
from tests.games.api_support import solution_of, todays_challenge

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
db = database_sync_to_async


async def token_post(key: str, attempt_id: int, body: dict[str, Any]) -> tuple[int, Any, Any]:
    """The status, JSON body and headers of a token post through ``config.asgi``."""
    content = json.dumps(body).encode()
    communicator = HttpCommunicator(
        application,
        "POST",
        f"/api/v1/attempts/{attempt_id}/actions/",
        body=content,
        headers=[  # what an API client (curl, requests) sends
            (b"host", b"localhost:8000"),
            (b"authorization", f"Token {key}".encode()),
            (b"content-type", b"application/json"),
            (b"accept", b"application/json"),
            (b"content-length", str(len(content)).encode()),
        ],
    )
    response = await communicator.get_response(timeout=30)
    return response["status"], json.loads(response["body"]), dict(response["headers"])


def _started() -> tuple[str, int, list[str]]:
    """A player's API token, its ranked attempt at today's challenge, the winning line."""
    challenge = todays_challenge()
    player = make_player("ada")
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    key = Token.objects.create(user=player).key
    return key, attempt.pk, solution_of(challenge.deal)


def _stored_log(attempt_id: int) -> list[str]:
    return list(Attempt.objects.get(pk=attempt_id).log)


async def ask(socket: WebsocketCommunicator, message: dict[str, Any]) -> dict[str, Any]:
    await socket.send_json_to(message)
    answer: dict[str, Any] = await socket.receive_json_from(timeout=30)
    return answer


async def test_an_api_clients_token_post_goes_through_django() -> None:
    key, attempt_id, line = await db(_started)()
    started: list[Any] = []
    finished: list[Any] = []

    def on_started(**kwargs: Any) -> None:
        started.append(kwargs)

    def on_finished(**kwargs: Any) -> None:
        finished.append(kwargs)

    request_started.connect(on_started)
    request_finished.connect(on_finished)
    try:
        status, body, headers = await token_post(
            key, attempt_id, {"offset": 0, "actions": line[:2]}
        )
        refused, error, _ = await token_post(key, attempt_id, {"offset": 5, "actions": line[:1]})
    finally:
        request_started.disconnect(on_started)
        request_finished.disconnect(on_finished)

    assert status == 200 and body["offset"] == 2
    assert (refused, error["error"]["code"]) == (409, "offset_conflict")
    assert (len(started), len(finished)) == (2, 2)  # each post a request Django handled
    assert headers[b"x-frame-options"] == b"DENY"
    assert await db(_stored_log)(attempt_id) == line[:2]


async def test_a_throttled_batch_is_refused_alike_on_both_transports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The door counts every batch, over HTTP or the socket, in one counter; a throttled
    one is refused before its input is read, with the same answer on both."""
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "actions", "2/min")
    key, attempt_id, line = await db(_started)()
    socket = WebsocketCommunicator(
        application,
        f"/ws/attempts/{attempt_id}/play/",
        [(b"authorization", f"Token {key}".encode())],
    )
    assert (await socket.connect(timeout=30))[0]
    assert (await socket.receive_json_from(timeout=30))["type"] == "ready"
    try:
        first = await ask(socket, {"type": "actions", "id": 1, "offset": 0, "actions": line[:1]})
        second, _, _ = await token_post(key, attempt_id, {"offset": 1, "actions": line[1:2]})
        over_socket = await ask(socket, {"type": "actions", "id": 2, "offset": "bad"})
        over_http, body, headers = await token_post(key, attempt_id, {"offset": "bad"})
    finally:
        await socket.disconnect()
        await asyncio.to_thread(release_connections)

    assert (first["status"], second) == (200, 200)
    assert (over_socket["status"], over_http) == (429, 429)
    assert over_socket["body"]["error"]["code"] == body["error"]["code"] == "throttled"
    assert int(headers[b"retry-after"]) == body["error"]["details"]["wait"] > 0
    assert await db(_stored_log)(attempt_id) == line[:2]
