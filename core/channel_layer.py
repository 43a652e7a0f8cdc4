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
(core/group_fanout.py), each socket with its own bounded mailbox.

Pub/sub channels belong to the whole Redis server, not to one of its numbered databases:
``prefix_for`` puts the database of ``REDIS_URL`` into the layer's prefix, so two
deployments (or test runs) on one Redis server with different database numbers never
hear each other's boards, as they never shared keys.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer
from channels_redis.utils import _wrap_close

from core.live_losses import count_loss

DEFAULT_CAPACITY = 100


def prefix_for(redis_url: str) -> str:
    """``asgi-db<N>``: the layer's prefix for the Redis database N of the URL (0 if none)."""
    parts = urllib.parse.urlsplit(redis_url)
    number = parts.path.strip("/") or dict(urllib.parse.parse_qsl(parts.query)).get("db", "0")
    return f"asgi-db{int(number) if number.isdigit() else 0}"


class DropOldestQueue(asyncio.Queue[Any]):
    """A bounded queue that makes room for a new item by dropping its oldest one."""

    def put_nowait(self, item: Any) -> None:
        while self.full():
            self.get_nowait()
            count_loss("channel_overflow")
        super().put_nowait(item)


class BoundedLoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args: Any, capacity: int = DEFAULT_CAPACITY, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.capacity = capacity

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
