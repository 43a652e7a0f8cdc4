"""What the live board's tests share: their marks, a watcher's socket, the next message of a
type, every message for a while, and the check that no message carries a card or a logged
action."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from core.live import wait_idle
from tests.conftest import LIVE_SETTLE_SECONDS

ORIGIN = (b"origin", b"http://localhost")
SECRET_KEYS = ("log", "seed", "deal", "tableau", "stock", "face_down", "cells", "foundations")
LOGGED_ACTION = "t1-c1"  # every test attempt's log is made of it (tests/leaderboards/conftest)

db = database_sync_to_async
DELIVERED_SECONDS = 0.3
# The marks of a test of the live sockets (the fixture is tests/leaderboards/conftest.py's).
LIVE_SOCKET_TEST = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_connection_left_in_the_sync_thread"),
]


async def connected(path: str, cookie: str | None = None) -> WebsocketCommunicator:
    """A socket to ``path`` from the site's origin (signed in with the session ``cookie``),
    its handshake accepted."""
    headers = [ORIGIN]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    accepted, _ = await communicator.connect()
    assert accepted
    return communicator


async def watch_path(
    path: str, cookie: str | None = None
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A watcher of the live board at ``path``, and the snapshot it got first (no secret)."""
    communicator = await connected(path, cookie)
    snapshot = await communicator.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot", snapshot
    assert_no_secret(snapshot)
    return communicator, snapshot


async def watch(
    challenge_id: int, cookie: str | None = None
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A watcher of the day's board of ``challenge_id``, and its snapshot."""
    return await watch_path(f"/ws/challenges/{challenge_id}/", cookie)


def assert_no_secret(message: dict[str, Any]) -> None:
    """No field that could carry cards or the deal, and no action of any stored log."""
    text = json.dumps(message)
    for key in SECRET_KEYS:
        assert f'"{key}":' not in text, (key, text)
    assert LOGGED_ACTION not in text, text


async def next_of(
    communicator: WebsocketCommunicator, kind: str, timeout: float = 5
) -> dict[str, Any]:
    """The next message of one type (others are checked for secrets and skipped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        message = await communicator.receive_json_from(timeout=max(0.01, deadline - loop.time()))
        assert_no_secret(message)
        if message["type"] == kind:
            return message


async def settled_frames(
    communicator: WebsocketCommunicator, until: Callable[[list[str]], bool] = lambda _: True
) -> list[str]:
    """Every frame the pushes set off so far bring: once they have all run to their end
    (``core.live.wait_idle``, a window's flush included, however slow the machine), what
    has arrived, until none comes for ``DELIVERED_SECONDS`` (the layer's hop to the socket;
    receive_nothing: a timeout must not kill the app) and ``until(frames)`` holds, or
    ``LIVE_SETTLE_SECONDS`` have passed (a hop a loaded machine makes late is still taken)."""
    assert await asyncio.to_thread(wait_idle, LIVE_SETTLE_SECONDS)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LIVE_SETTLE_SECONDS
    frames: list[str] = []
    while True:
        if not await communicator.receive_nothing(timeout=DELIVERED_SECONDS, interval=0.01):
            frames.append(await communicator.receive_from())
        elif until(frames) or loop.time() >= deadline:
            return frames


async def drain(
    communicator: WebsocketCommunicator,
    until: Callable[[list[dict[str, Any]]], bool] = lambda _: True,
) -> list[dict[str, Any]]:
    """``settled_frames`` as messages, each checked for secrets; ``until`` reads messages."""
    frames = await settled_frames(communicator, lambda got: until([json.loads(f) for f in got]))
    messages = [json.loads(frame) for frame in frames]
    for message in messages:
        assert_no_secret(message)
    return messages
