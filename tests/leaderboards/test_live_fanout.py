"""Group messages are fanned out inside the process (core.live.group_fanout, core.live.consumers).

Redis' work for a board must not grow with the number of watchers, and one socket that
stops reading must neither delay the others nor hold more than its mailbox.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
import redis.asyncio as redis
from channels.layers import get_channel_layer
from django.conf import settings

from core.live.consumers import MAILBOX_SIZE, GroupMember
from core.live.group_fanout import local_groups
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import finish, make_attempt
from tests.leaderboards.live_support import (
    LIVE_SOCKET_TEST,
    db,
    next_of,
    watch,
)
from tests.waiting import until

pytestmark = LIVE_SOCKET_TEST


async def subscriptions(prefix: str) -> list[bytes | str]:
    client = redis.from_url(str(settings.REDIS_URL))
    try:
        return list(await client.pubsub_channels(f"{prefix}*"))
    finally:
        await client.aclose()


@pytest.mark.redis
async def test_a_process_subscribes_once_per_board_whatever_its_watchers() -> None:
    challenge = await db(make_challenge)()
    attempt = await db(make_attempt)(challenge, await db(make_player)("solo"), ended_at=None)
    prefix = get_channel_layer().prefix
    before = await subscriptions(prefix)

    watchers = [(await watch(challenge.pk))[0] for _ in range(6)]
    added = set(await subscriptions(prefix)) - set(before)
    # The board's group and this process's channel in it: two, for six watchers (with a
    # channel per socket it was seven).
    assert len(added) == 2, added
    await db(finish)(attempt, score=250)
    for communicator in watchers:
        board = await next_of(communicator, "board")
        assert board["top"][0]["username"] == "solo"

    for communicator in watchers:
        await communicator.disconnect()

    # (the unsubscribe is the pub/sub reader's, once cancelled: wait for it)
    async def unsubscribed() -> bool:
        return set(await subscriptions(prefix)) <= set(before)

    await until(unsubscribed, 5, "the process's Redis subscriptions to end", 0.05)
    assert local_groups().member_count(f"challenge_{challenge.pk}") == 0


class Recorder(GroupMember):
    """A member whose socket takes a note per message; ``stuck`` holds its first send."""

    def __init__(self, stuck: asyncio.Event | None = None) -> None:
        super().__init__()
        self.scope = {"path": "/test"}
        self.stuck = stuck
        self.got: list[int] = []

    async def note(self, event: dict[str, Any]) -> None:
        if self.stuck is not None and not self.stuck.is_set():
            await self.stuck.wait()
        self.got.append(event["n"])


def has_read(recorder: Recorder, count: int) -> bool:
    return len(recorder.got) == count


async def test_a_socket_that_stops_reading_delays_no_one_and_keeps_only_the_newest() -> None:
    group = "fanout-test"
    unstuck = asyncio.Event()
    reading, stopped = Recorder(), Recorder(stuck=unstuck)
    await reading.join_groups([group])
    await stopped.join_groups([group])
    sent = MAILBOX_SIZE + 50
    try:
        for n in range(sent):
            await get_channel_layer().group_send(group, {"type": "note", "n": n})
            # the reader is never held up
            await until(functools.partial(has_read, reading, n + 1), 5, f"message {n}", 0.005)
        assert reading.got == list(range(sent))
        assert stopped.got == []
        unstuck.set()
        # The first message was being sent when it stopped; of the rest, the newest ones.
        await until(lambda: len(stopped.got) == 1 + MAILBOX_SIZE, 5, "the mailbox read", 0.005)
        assert stopped.got == [0, *range(sent - MAILBOX_SIZE, sent)]
    finally:
        await reading.leave_groups()
        await stopped.leave_groups()
    assert local_groups().member_count(group) == 0


async def test_a_watcher_gone_during_its_handshake_does_not_take_the_others_group() -> None:
    group = "fanout-handshake"
    first, second = Recorder(), Recorder()
    joining = asyncio.create_task(first.join_groups([group]))
    await asyncio.sleep(0)  # the first joiner has started the process's subscription
    second_joining = asyncio.create_task(second.join_groups([group]))
    joining.cancel()  # its client left
    await asyncio.wait_for(second_joining, 5)
    try:
        await get_channel_layer().group_send(group, {"type": "note", "n": 7})
        await until(lambda: second.got == [7], 5, "the second joiner's message", 0.005)
        assert first.got == [] and local_groups().member_count(group) == 1
    finally:
        await second.leave_groups()
    assert local_groups().member_count(group) == 0
