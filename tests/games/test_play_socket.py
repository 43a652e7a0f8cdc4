"""Actions over the play socket (ws/attempts/<id>/play/): the HTTP endpoint's checks and
answers, byte for byte, over the other transport; sign-in by session or token; the origin;
close codes; a batch resent after a drop applied once; a second account sees nothing.

The socket's answers are compared with the HTTP endpoint's own: a batch played over the
socket and then posted again over HTTP is a retry there, answered exactly as the first time,
so the two bodies must be equal.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle

from config.asgi import application
from core.live import wait_idle
from games.api.play_threads import release_connections
from games.models import Attempt
from games.services.attempts import attempt_start_ranked
from leaderboards import live
from tests.conftest import LIVE_SETTLE_SECONDS
from tests.dead_port import dead_port
from tests.factories import make_player
from tests.games.api_support import (
    board_after,
    client_for,
    hidden_cards,
    post_actions,
    solution_of,
    todays_challenge,
)
from tests.waiting import until

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://localhost")
db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True)
async def _no_connection_left_behind(
    transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[None]:
    """Let the live pushes of the game (short windows here) finish while the database is
    there, then close the connections of asgiref's thread and of the socket's own threads."""
    for kind in ("board", "progress"):
        monkeypatch.setitem(live.WINDOW_SECONDS, kind, 0.1)
    yield
    assert await asyncio.to_thread(wait_idle, LIVE_SETTLE_SECONDS)
    await db(_close_connections)()
    await asyncio.to_thread(release_connections)


def _close_connections() -> None:
    for wrapper in connections.all(initialized_only=True):
        BaseDatabaseWrapper.close(wrapper)


def _session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def _started(name: str) -> tuple[Any, Attempt, list[str]]:
    """A player with a ranked attempt at today's quick challenge, and its winning line."""
    challenge = todays_challenge()
    player = make_player(name)
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    return player, attempt, solution_of(challenge.deal)


async def play_socket(
    attempt_id: int, headers: list[tuple[bytes, bytes]]
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    socket = WebsocketCommunicator(application, f"/ws/attempts/{attempt_id}/play/", headers)
    connected, _ = await socket.connect()
    assert connected
    return socket, await socket.receive_json_from(timeout=5)


async def signed_in(user: Any, attempt_id: int) -> WebsocketCommunicator:
    cookie = (b"cookie", f"sessionid={await db(_session_cookie)(user)}".encode())
    socket, ready = await play_socket(attempt_id, [ORIGIN, cookie])
    assert ready["type"] == "ready", ready
    return socket


async def ask(socket: WebsocketCommunicator, message: dict[str, Any]) -> dict[str, Any]:
    await socket.send_json_to(message)
    answer = await socket.receive_json_from(timeout=5)
    assert answer["type"] == "answer" and answer["id"] == message.get("id"), answer
    return answer


async def closed_with(socket: WebsocketCommunicator) -> tuple[dict[str, Any], int]:
    """The error message the server sent, then its close code."""
    error = await socket.receive_json_from(timeout=5)
    closing = await socket.receive_output(timeout=5)
    assert closing["type"] == "websocket.close", closing
    return error, closing["code"]


def http_post(user: Any, attempt_id: int, offset: int, actions: Any) -> tuple[int, Any]:
    response = post_actions(client_for(user), attempt_id, offset, actions)
    return response.status_code, response.json()


def stored_log(attempt_id: int) -> list[str]:
    return list(Attempt.objects.get(pk=attempt_id).log)


async def test_a_game_won_over_the_socket_is_answered_as_over_http() -> None:
    player, attempt, line = await db(_started)("ada")
    socket = await signed_in(player, attempt.pk)
    answers = []
    for offset in range(0, len(line), 3):
        batch = line[offset : offset + 3]
        answer = await ask(
            socket, {"type": "actions", "id": offset, "offset": offset, "actions": batch}
        )
        assert answer["status"] == 200, answer
        answers.append((offset, batch, answer["body"]))
    assert answers[-1][2]["won"] and answers[-1][2]["over"]
    assert await db(stored_log)(attempt.pk) == line
    # The HTTP endpoint answers each batch again (a retry) with the very same body.
    for offset, batch, body in answers:
        status, http_body = await db(http_post)(player, attempt.pk, offset, batch)
        assert (status, http_body) == (200, body)
    await socket.disconnect()


async def test_every_refusal_is_the_http_endpoints_own() -> None:
    player, attempt, line = await db(_started)("ada")
    deal = attempt.deal
    socket = await signed_in(player, attempt.pk)
    assert (await ask(socket, {"type": "actions", "id": "a", "offset": 0, "actions": line[:2]}))[
        "status"
    ] == 200
    board = await db(board_after)(deal, line[:2])
    illegal = next(
        text
        for text in ("t1-t2", "t2-t3", "t3-t4", "c1-t1", "f1-t1")
        if text not in board.legal_actions()
    )
    cases = [
        (0, line[2:4]),  # stale offset: 409 offset_conflict with the current offset
        (9, ["deal"]),  # ahead
        (2, [line[2], illegal]),  # refused at its index in the log, nothing stored
        (2, ["zz"]),  # not the notation
        (2, []),  # empty batch
        (2, [7]),  # not a string
        ("two", ["deal"]),  # offset not an integer
        (-1, ["deal"]),
    ]
    for offset, actions in cases:
        answer = await ask(
            socket, {"type": "actions", "id": "x", "offset": offset, "actions": actions}
        )
        status, body = await db(http_post)(player, attempt.pk, offset, actions)
        assert (answer["status"], answer["body"]) == (status, body), (offset, actions)
        assert status in (400, 409)
    refused = await ask(
        socket, {"type": "actions", "id": 1, "offset": 2, "actions": [line[2], illegal]}
    )
    assert refused["body"]["error"]["details"]["index"] == 3
    assert refused["body"]["error"]["details"]["action"] == illegal
    missing = await ask(socket, {"type": "actions", "id": 2, "actions": ["deal"]})
    assert missing["status"] == 400
    assert "offset" in missing["body"]["error"]["details"]
    assert await db(stored_log)(attempt.pk) == line[:2]
    await socket.disconnect()


async def test_a_message_without_an_id_or_of_an_unknown_type_says_which_field() -> None:
    player, attempt, _ = await db(_started)("ada")
    socket = await signed_in(player, attempt.pk)
    await socket.send_json_to({"type": "actions", "offset": 0, "actions": ["deal"]})
    no_id = await socket.receive_json_from(timeout=5)
    assert no_id["status"] == 400 and no_id["id"] is None
    assert list(no_id["body"]["error"]["details"]) == ["id"]
    unknown = await ask(socket, {"type": "resign", "id": 5})
    assert unknown["status"] == 400
    assert list(unknown["body"]["error"]["details"]) == ["type"]
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    assert await db(stored_log)(attempt.pk) == []
    await socket.disconnect()


async def test_a_batch_resent_after_a_drop_is_applied_once() -> None:
    player, attempt, line = await db(_started)("ada")
    first = await signed_in(player, attempt.pk)
    await first.send_json_to({"type": "actions", "id": 1, "offset": 0, "actions": line[:2]})
    applied = db(lambda: stored_log(attempt.pk) == line[:2])  # the server applies it...
    await until(applied, 10, "the first batch applied")
    await first.disconnect()  # ...and its answer is lost with the socket
    second = await signed_in(player, attempt.pk)
    again = await ask(second, {"type": "actions", "id": 1, "offset": 0, "actions": line[:2]})
    assert again["status"] == 200 and again["body"]["offset"] == 2
    assert await db(stored_log)(attempt.pk) == line[:2]
    # the ready message of a new socket names the stored offset
    third, ready = await play_socket(
        attempt.pk, [ORIGIN, (b"cookie", f"sessionid={await db(_session_cookie)(player)}".encode())]
    )
    assert ready == {"type": "ready", "attempt_id": attempt.pk, "offset": 2}
    await second.disconnect()
    await third.disconnect()


async def test_an_api_client_plays_with_its_token_and_no_origin() -> None:
    player, attempt, line = await db(_started)("ada")
    token = await db(Token.objects.create)(user=player)
    socket, ready = await play_socket(
        attempt.pk, [(b"authorization", f"Token {token.key}".encode())]
    )
    assert ready["offset"] == 0
    answer = await ask(socket, {"type": "actions", "id": 1, "offset": 0, "actions": line[:1]})
    assert answer["status"] == 200
    await socket.disconnect()


async def test_no_session_a_bad_token_or_a_foreign_origin_cannot_play() -> None:
    player, attempt, _ = await db(_started)("ada")
    anonymous, error = await play_socket(attempt.pk, [ORIGIN])
    assert error["error"]["code"] == "not_authenticated"
    assert (await anonymous.receive_output(timeout=5))["code"] == 4401
    bad, error = await play_socket(attempt.pk, [(b"authorization", b"Token nope")])
    assert error["error"]["code"] == "authentication_failed"
    assert (await bad.receive_output(timeout=5))["code"] == 4401
    # a page of another site, with the player's cookie: the handshake is refused
    cookie = (b"cookie", f"sessionid={await db(_session_cookie)(player)}".encode())
    foreign = WebsocketCommunicator(
        application,
        f"/ws/attempts/{attempt.pk}/play/",
        [(b"origin", b"http://evil.example"), cookie],
    )
    connected, _ = await foreign.connect()
    assert not connected
    assert await db(stored_log)(attempt.pk) == []


async def test_an_expired_token_is_refused_with_its_own_code(settings: Any) -> None:
    settings.API_TOKEN_DAYS = 1
    player, attempt, _ = await db(_started)("ada")
    token = await db(Token.objects.create)(user=player)
    await db(Token.objects.filter(pk=token.pk).update)(created="2020-01-01T00:00:00Z")
    socket, error = await play_socket(
        attempt.pk, [(b"authorization", f"Token {token.key}".encode())]
    )
    assert error["error"]["code"] == "token_expired"
    assert (await socket.receive_output(timeout=5))["code"] == 4401


async def test_a_second_account_finds_no_attempt_and_no_card() -> None:
    owner, attempt, line = await db(_started)("ada")
    other = await db(make_player)("eve")
    for attempt_id in (attempt.pk, attempt.pk + 1000, 10000000000000000001):
        cookie = (b"cookie", f"sessionid={await db(_session_cookie)(other)}".encode())
        socket, error = await play_socket(attempt_id, [ORIGIN, cookie])
        assert error["error"] == {
            "code": "not_found",
            "message": "No such attempt.",
            "details": None,
        }
        assert (await socket.receive_output(timeout=5))["code"] == 4404
    # The owner's own answers carry only cards turned up: none of the hidden ones.
    socket = await signed_in(owner, attempt.pk)
    answer = await ask(socket, {"type": "actions", "id": 1, "offset": 0, "actions": line[:3]})
    board = await db(board_after)(attempt.deal, line[:3])
    text = json.dumps(answer)
    assert attempt.deal.nonce not in text
    for key in ("seed", "nonce", "solution", "log", "face_down_cards"):
        assert f'"{key}"' not in text
    visible = json.dumps(answer["body"]["state"])
    for card in hidden_cards(board):
        assert f'"{card}"' not in visible or card in json.dumps(_shown(answer["body"]["state"]))
    await socket.disconnect()


def _shown(state: dict[str, Any]) -> list[str]:
    """Every card the state view shows face up."""
    shown = [card for column in state["tableau"] for card in column if card]
    shown += [card for card in state.get("cells", []) if card]
    return shown


async def test_bad_frames_close_the_socket_with_4400() -> None:
    player, attempt, _ = await db(_started)("ada")
    for frame in ("not json", "[1, 2]", json.dumps({"type": "actions", "id": 1, "x": "y" * 20000})):
        socket = await signed_in(player, attempt.pk)
        await socket.send_to(text_data=frame)
        error, code = await closed_with(socket)
        assert (error["error"]["code"], code) == ("bad_frame", 4400)
    socket = await signed_in(player, attempt.pk)
    await socket.send_to(bytes_data=b"\x00\x01")
    error, code = await closed_with(socket)
    assert code == 4400


async def test_the_socket_shares_the_http_endpoints_throttle(monkeypatch: Any) -> None:
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "actions", "3/min")
    player, attempt, line = await db(_started)("ada")
    socket = await signed_in(player, attempt.pk)
    for offset in range(2):
        answer = await ask(
            socket,
            {
                "type": "actions",
                "id": offset,
                "offset": offset,
                "actions": line[offset : offset + 1],
            },
        )
        assert answer["status"] == 200
    status, _ = await db(http_post)(player, attempt.pk, 2, line[2:3])
    assert status == 200
    throttled = await ask(socket, {"type": "actions", "id": 9, "offset": 3, "actions": line[3:4]})
    assert throttled["status"] == 429
    assert throttled["body"]["error"]["code"] == "throttled"
    assert throttled["body"]["error"]["details"]["wait"] > 0
    assert await db(stored_log)(attempt.pk) == line[:3]
    await socket.disconnect()


async def test_the_play_socket_opens_and_plays_while_the_channel_layer_is_unreachable(
    settings: Any,
) -> None:
    """The play socket joins no group: its handshake must not need Redis (a Redis outage
    made every handshake a 500, and each open socket held an idle subscription)."""
    player, attempt, line = await db(_started)("ada")
    with dead_port() as port:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "core.live.PubSubChannelLayer",
                "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"], "prefix": "asgi-outage"},
            }
        }
        for _ in range(3):
            socket = await signed_in(player, attempt.pk)
            await socket.disconnect()
        socket = await signed_in(player, attempt.pk)
        body = {"type": "actions", "id": 1, "offset": 0, "actions": line[:3]}
        answer = await ask(socket, body)
        assert answer["status"] == 200, answer
        await socket.disconnect()
    assert await db(stored_log)(attempt.pk) == line[:3]
