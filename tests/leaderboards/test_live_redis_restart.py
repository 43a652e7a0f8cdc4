"""The live board through a Redis restart: watchers told at once, a reconnect served again.

A redis-server of the test's own carries the channel layer; the test stops it under a
connected watcher and starts it again. Before, the watcher stayed open and silent through
the outage (channels-redis' receiver logged an ERROR traceback every second and kept the
dead connection), and the first push after the restart went out on that stale connection.
Now the watcher is closed 4503 (live updates unavailable) as soon as the subscription's
connection fails; a watcher that connects again once Redis is back is served the board
from the database (its snapshot, with what was stored during the outage) and hears the
next push.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

import pytest

from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import finish, make_attempt
from tests.leaderboards.live_support import (
    LIVE_SOCKET_TEST,
    db,
    next_of,
    watch,
)
from tests.own_redis import OwnRedis, own_redis

__all__ = ["own_redis"]

pytestmark = [*LIVE_SOCKET_TEST, pytest.mark.redis]


@pytest.fixture
def layer_on_own_redis(own_redis: OwnRedis, settings: Any) -> OwnRedis:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "core.live.PubSubChannelLayer",
            "CONFIG": {"hosts": [own_redis.url], "prefix": f"restart-{uuid.uuid4().hex[:8]}"},
        }
    }
    return own_redis


async def test_a_redis_restart_closes_watchers_4503_and_a_reconnect_gets_the_stored_board(
    layer_on_own_redis: OwnRedis, caplog: pytest.LogCaptureFixture
) -> None:
    redis = layer_on_own_redis
    challenge = await db(make_challenge)()
    during = await db(make_attempt)(challenge, await db(make_player)("during"), ended_at=None)
    after = await db(make_attempt)(challenge, await db(make_player)("after"), ended_at=None)
    watchers = [(await watch(challenge.pk))[0] for _ in range(2)]

    with caplog.at_level(logging.WARNING):
        redis.stop()
        stopped = time.monotonic()
        for watcher in watchers:
            assert await watcher.receive_output(timeout=10) == {
                "type": "websocket.close",
                "code": 4503,
            }
        print(f"\nwatchers closed 4503 {time.monotonic() - stopped:.3f} s after Redis stopped")
        for watcher in watchers:
            await watcher.disconnect()  # the client's side of the close
        await db(finish)(during, score=300)  # stored while Redis is away (its push is lost)
        redis.start()

        again, snapshot = await watch(challenge.pk)
        assert [row["username"] for row in snapshot["top"]] == ["during"]
        await db(finish)(after, score=200)  # the first push after the restart
        board = await next_of(again, "board")
        assert [row["username"] for row in board["top"]] == ["during", "after"]
        await again.disconnect()

    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert errors == []


async def test_after_a_restart_unnoticed_the_first_watcher_and_push_go_through(
    layer_on_own_redis: OwnRedis,
) -> None:
    """Redis restarted while nobody of this process was subscribed: nothing noticed the
    outage, and the process's connections (the subscriber's and the publisher's) are
    stale. Before, the next watcher was closed 4503 and the next push lost, each failing
    once on its stale connection; now each is tried once more on a fresh one."""
    redis = layer_on_own_redis
    challenge = await db(make_challenge)()
    first = await db(make_attempt)(challenge, await db(make_player)("first"), ended_at=None)
    second = await db(make_attempt)(challenge, await db(make_player)("second"), ended_at=None)
    before, _ = await watch(challenge.pk)
    await db(finish)(first, score=300)
    assert [row["username"] for row in (await next_of(before, "board"))["top"]] == ["first"]
    await before.disconnect()  # nobody of this process subscribed now

    redis.stop()
    redis.start()

    after, _ = await watch(challenge.pk)  # a snapshot, not a 4503 from a stale subscriber
    await db(finish)(second, score=200)  # published on a stale connection
    board = await next_of(after, "board")
    assert [row["username"] for row in board["top"]] == ["first", "second"]
    await after.disconnect()
