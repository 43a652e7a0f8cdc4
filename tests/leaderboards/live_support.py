"""What the live board's tests share: a watcher's socket, the next message of a type, every
message for a while, and the check that no message carries a card or a logged action."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from config.asgi import application
from leaderboards import live

ORIGIN = (b"origin", b"http://localhost")
SECRET_KEYS = ("log", "seed", "deal", "tableau", "stock", "face_down", "cells", "foundations")
LOGGED_ACTION = "t1-c1"  # every test attempt's log is made of it (tests/leaderboards/conftest)

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True)
async def _no_connection_left_in_the_sync_thread() -> AsyncIterator[None]:
    """database_sync_to_async runs in asgiref's shared thread; leave no connection there for
    the next (maybe not database-enabled) test to trip over."""
    yield
    await asyncio.sleep(live.BOARD_WINDOW_SECONDS + 0.1)  # let pending flushes finish
    await db(_close_connections)()


def _close_connections() -> None:
    # SQLite's close() keeps an in-memory test database open; the next test, perhaps without
    # database access, would find it in close_old_connections(). The main thread's own
    # connection keeps the shared in-memory database alive.
    for wrapper in connections.all(initialized_only=True):
        BaseDatabaseWrapper.close(wrapper)


async def watch(
    challenge_id: int, cookie: str | None = None
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    headers = [ORIGIN]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(
        application, f"/ws/challenges/{challenge_id}/", headers=headers
    )
    connected, _ = await communicator.connect()
    assert connected
    snapshot = await communicator.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot"
    assert_no_secret(snapshot)
    return communicator, snapshot


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


async def drain(communicator: WebsocketCommunicator, seconds: float) -> list[dict[str, Any]]:
    """Every message within ``seconds`` (receive_nothing: a timeout must not kill the app)."""
    messages = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        if await communicator.receive_nothing(timeout=0.05, interval=0.01):
            continue
        messages.append(await communicator.receive_json_from())
    for message in messages:
        assert_no_secret(message)
    return messages
