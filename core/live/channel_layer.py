"""The Redis channel layer: channels-redis' pub/sub layer, with a bounded queue per channel.

Why pub/sub: a live board goes to every watcher of a challenge. channels-redis' core layer
writes one Redis entry per member of the group for every message (10,000 watchers, 10,000
writes a board); the pub/sub layer publishes once per group, Redis hands it to each
subscribed process once, and the process fans it out to its own consumers. Redis' work
per board is one PUBLISH and one delivery per web process, whatever the number of watchers.

What it gives up (acceptable for live pushes, which are a convenience over data safe in
PostgreSQL): a message published while a process is not subscribed is not kept for it, and
there is no per-message expiry. The core layer's ``capacity`` is kept here: each
channel's queue in the process holds at most ``capacity`` messages; past it the oldest is
dropped (a newer board follows). The watchers' sockets have no channel of their own: each
process reads a group's messages through one channel and fans them out itself
(core/live/group_fanout.py), each socket with its own bounded mailbox.

Pub/sub channels belong to the whole Redis server, not to one of its numbered databases:
``prefix_for`` puts the database of ``REDIS_URL`` into the layer's prefix, so two
deployments (or test runs) on one Redis server with different database numbers never
hear each other's boards, as they never shared keys.

When the connection that reads the subscriptions fails (Redis stopped or restarted),
channels-redis' receiver logs an ERROR traceback every second and keeps waiting on the
dead connection, while every channel's reader waits on, silent. Here the shard's
receiver stops at the first failure instead: every channel read through it fails with
the error (``core.live.group_fanout`` closes its watchers 4503 then), its groups are
forgotten, and its Redis client is dropped, so that the next subscribe or publish opens a
fresh connection rather than failing once on the stale one. One warning line per loss.
A process that was subscribed to nothing during the outage notices nothing and keeps its
stale connections: a subscribe or publish that fails on a closed connection is tried once
more (redis-py connects again for it); a Redis still away fails that one too, and that
error is raised.

Private names of channels-redis reached here (no public way to swap a shard's receiver or
a loop layer's queues): ``RedisSingleShardConnection._do_receiving`` (replaced),
``_receive_message``, ``_receive_task``, ``_lock``, ``_redis``, ``_pubsub``,
``_subscribed_to``; ``RedisPubSubLoopLayer._shards``, ``_get_shard``,
``_subscribe_to_channel`` (replaced); ``RedisPubSubChannelLayer._get_layer`` (replaced),
``_layers``, ``_args``, ``_kwargs``; ``channels_redis.utils._wrap_close``. Each is pinned by
tests/core/test_library_reaches.py, which fails on a version where one of them changed.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close
from redis.exceptions import ConnectionError as RedisConnectionError

from core.live.losses import count_loss

log = logging.getLogger(__name__)

DEFAULT_CAPACITY = 100
# What a failed channel's queue holds last: its reader raises the failure on reaching it.
_FAILED = object()


def prefix_for(redis_url: str) -> str:
    """``asgi-db<N>``: the layer's prefix for the Redis database N of the URL (0 if none)."""
    parts = urllib.parse.urlsplit(redis_url)
    number = parts.path.strip("/") or dict(urllib.parse.parse_qsl(parts.query)).get("db", "0")
    return f"asgi-db{int(number) if number.isdigit() else 0}"


class DropOldestQueue(asyncio.Queue[Any]):
    """A bounded queue that makes room for a new item by dropping its oldest one; once
    ``fail`` is called, its reader raises the failure after the items before it."""

    failure: BaseException | None = None

    def put_nowait(self, item: Any) -> None:
        while self.full():
            self.get_nowait()
            count_loss("channel_overflow")
        super().put_nowait(item)

    def fail(self, error: BaseException) -> None:
        self.failure = error
        self.put_nowait(_FAILED)

    async def get(self) -> Any:
        item = await super().get()
        if item is _FAILED:
            assert self.failure is not None
            raise self.failure
        return item


class ResettingShard(RedisSingleShardConnection):
    """channels-redis' connection to one Redis, whose receiver gives up at the first
    failure of its connection: the loop layer fails the channels it fed, and the client
    is dropped so that the next use connects afresh."""

    channel_layer: BoundedLoopLayer
    _redis: Any  # (the base class's, untyped there)
    _pubsub: Any
    _subscribed_to: set[str]

    async def subscribe(self, channel: str) -> None:
        try:
            await super().subscribe(channel)
        except RedisConnectionError:  # maybe a stale connection (Redis restarted since)
            await super().subscribe(channel)

    async def publish(self, channel: str, message: bytes) -> None:
        try:
            await super().publish(channel, message)
        except RedisConnectionError:  # maybe a stale connection (Redis restarted since)
            await super().publish(channel, message)

    async def _do_receiving(self) -> None:
        while True:
            pubsub = self._pubsub
            if pubsub is None or not pubsub.subscribed:
                await asyncio.sleep(0.1)
                continue
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
            except Exception as error:  # (a cancel, the layer's flush, is not caught)
                await self._lost(error)
                return
            self._receive_message(message)

    async def _lost(self, error: Exception) -> None:
        # (counted as lost by core.live.group_fanout, once per group it closes)
        self._receive_task = None  # this one ends now; the next subscribe starts another
        failed = self.channel_layer.fail_channels_of(self, error)
        log.warning("Redis pub/sub connection lost, %d channel(s) closed: %r", failed, error)
        async with self._lock:
            client, pubsub = self._redis, self._pubsub
            self._redis = self._pubsub = None
            self._subscribed_to = set()
        for closing in (pubsub, client):
            if closing is not None:
                try:
                    await closing.aclose()
                except Exception as close_error:  # the connection is dead already
                    log.debug("closing a lost Redis connection: %r", close_error)


class BoundedLoopLayer(RedisPubSubLoopLayer):
    _shards: list[RedisSingleShardConnection]  # (the base class's, untyped there)

    def __init__(self, *args: Any, capacity: int = DEFAULT_CAPACITY, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.capacity = capacity
        self._shards = [ResettingShard(shard.host, self) for shard in self._shards]

    def fail_channels_of(self, shard: RedisSingleShardConnection, error: BaseException) -> int:
        """Every channel that ``shard`` fed (its own, and the members of its groups) fails
        with ``error`` and is forgotten, with those groups: the count of channels."""
        lost_groups = [name for name in self.groups if self._get_shard(name) is shard]
        fed = {name for name in self.channels if self._get_shard(name) is shard}
        for group in lost_groups:
            fed |= self.groups.pop(group)
        failed = 0
        for name in fed:
            queue = self.channels.pop(name, None)
            if isinstance(queue, DropOldestQueue):
                queue.fail(error)
                failed += 1
        return failed

    async def _subscribe_to_channel(self, channel: str) -> None:
        self.channels[channel] = DropOldestQueue(maxsize=self.capacity)
        try:
            await self._get_shard(channel).subscribe(channel)
        except BaseException:
            # Redis is down: forget the queue (the base class keeps it, so every watcher
            # that tried to connect during an outage would leave one behind).
            self.channels.pop(channel, None)
            raise


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` whose per-loop layers bound each channel's queue."""

    def _get_layer(self) -> BoundedLoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = BoundedLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
