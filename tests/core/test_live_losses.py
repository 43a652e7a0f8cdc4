"""The fan-out's failure paths: each drops or fails what it must (a push is never worth an
exception in the caller), says so in one log line, and counts it in
``astrocyte_live_losses_total{where}`` (core/live/losses.py), so that an operator sees it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from channels.layers import get_channel_layer

from core.live import broadcasting
from core.live.channel_layer import DropOldestQueue
from core.live.consumers import MAILBOX_SIZE, GroupMember
from core.live.group_fanout import LocalGroups
from core.live.losses import losses
from tests.waiting import until


class Change:
    """How much a loss counter moves within a ``with``."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.by = 0.0

    def __enter__(self) -> Change:
        self.before = losses(self.where)
        return self

    def __exit__(self, *exc: object) -> None:
        self.by = losses(self.where) - self.before


class BrokenLayer:
    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        raise ConnectionError("Redis went away")


def test_a_group_message_the_layer_refuses_is_counted_and_logged_not_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(broadcasting, "get_channel_layer", lambda: BrokenLayer())
    with Change("send") as change, caplog.at_level(logging.WARNING, "core.live.broadcasting"):
        asyncio.run(broadcasting.send("challenge-1", "board.update", {"top": []}))
    assert change.by == 1
    assert "live push board.update to challenge-1 lost" in caplog.text


def test_a_push_that_fails_while_it_is_made_is_counted(caplog: pytest.LogCaptureFixture) -> None:
    async def failing() -> None:
        raise RuntimeError("the board could not be read")

    with Change("push") as change, caplog.at_level(logging.ERROR, "core.live.broadcasting"):
        broadcasting.submit(failing)  # returns at once: never raises to the caller
        assert broadcasting.wait_idle(5)
    assert change.by == 1
    assert "live push failed" in caplog.text


def test_a_push_that_cannot_be_scheduled_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loop() -> Any:
        raise RuntimeError("no loop")

    monkeypatch.setattr(broadcasting, "broadcasting_loop", no_loop)
    with Change("schedule") as change:
        broadcasting.submit(lambda: asyncio.sleep(0))  # returns: never raises to the caller
    assert change.by == 1


def test_a_full_subscription_queue_drops_its_oldest_and_counts_each() -> None:
    async def fill() -> list[int]:
        queue = DropOldestQueue(maxsize=3)
        for n in range(5):
            queue.put_nowait(n)
        return [queue.get_nowait() for _ in range(3)]

    with Change("channel_overflow") as change:
        kept = asyncio.run(fill())
    assert kept == [2, 3, 4]  # the newest are kept
    assert change.by == 2


class SlowSocket(GroupMember):
    """A consumer whose client reads nothing: its sender never gets to run."""

    def __init__(self) -> None:
        self.scope = {"path": "/ws/challenges/1/"}
        self.sent: list[Any] = []
        self.reading = asyncio.Event()  # the client reads again once set

    async def send(self, text_data: Any = None, bytes_data: Any = None, close: Any = False) -> None:
        await self.reading.wait()
        self.sent.append(text_data)

    async def board_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


def test_a_socket_that_does_not_read_loses_its_oldest_messages_counted() -> None:
    async def deliver_many() -> SlowSocket:
        socket = SlowSocket()
        for n in range(MAILBOX_SIZE + 7):
            socket.deliver({"type": "board.update", "text": str(n)})
        socket.reading.set()
        for _ in range(MAILBOX_SIZE + 10):
            await asyncio.sleep(0)
        return socket

    with Change("mailbox_overflow") as change:
        socket = asyncio.run(deliver_many())
    assert socket.sent[-1] == str(MAILBOX_SIZE + 6)  # the newest arrives
    # the first is being sent; of the others only the newest MAILBOX_SIZE wait: 6 dropped
    assert change.by == 6
    assert len(socket.sent) + change.by == MAILBOX_SIZE + 7  # each message sent or counted


class Watcher:
    def __init__(self) -> None:
        self.lost: list[BaseException] = []
        self.delivered: list[dict[str, Any]] = []

    def deliver(self, event: dict[str, Any]) -> None:
        self.delivered.append(event)

    def subscription_lost(self, error: BaseException) -> None:
        self.lost.append(error)


def test_a_group_channel_that_fails_tells_every_member_and_is_counted(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> list[Watcher]:
        layer = get_channel_layer()

        async def broken_receive(channel: str) -> dict[str, Any]:
            await asyncio.sleep(0.01)
            raise ConnectionError("the subscription's connection dropped")

        monkeypatch.setattr(layer, "receive", broken_receive)
        groups = LocalGroups()
        watchers = [Watcher(), Watcher()]
        for watcher in watchers:
            await groups.join("challenge-9", watcher)
        await until(lambda: all(watcher.lost for watcher in watchers), 5, "every watcher told")
        return watchers

    with Change("subscription_lost") as change, caplog.at_level(logging.WARNING):
        watchers = asyncio.run(scenario())
    assert change.by == 1
    assert all(len(watcher.lost) == 1 for watcher in watchers)
    assert "group challenge-9: its channel failed" in caplog.text


def test_a_group_that_cannot_be_left_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        layer = get_channel_layer()

        async def broken_discard(group: str, channel: str) -> None:
            raise ConnectionError("Redis went away")

        monkeypatch.setattr(layer, "group_discard", broken_discard)
        groups = LocalGroups()
        watcher = Watcher()
        await groups.join("challenge-10", watcher)
        await groups.leave("challenge-10", watcher)

    with Change("leave_failed") as change:
        asyncio.run(scenario())
    assert change.by == 1


def test_every_loss_series_is_exported_from_the_start() -> None:
    from prometheus_client import REGISTRY, generate_latest

    text = generate_latest(REGISTRY).decode()
    for where in ("send", "mailbox_overflow", "subscription_lost"):
        assert f'astrocyte_live_losses_total{{where="{where}"}}' in text
