"""The private names of other libraries that the live fan-out reaches, pinned: each test
fails on a version of the library where the name, or the code an override replaces, is no
longer what the override was written against (channels-redis 4.3.0, Channels 4.3,
Django 5.2, prometheus-client 0.26, Python 3.11's asyncio). docs/live.md lists them, each
with its test here.

channels-redis: core/live/channel_layer.py; Channels: core/live/consumers.py
(``DirectDispatch``); asyncio: core/live/eager_start.py; prometheus-client:
core/live/losses.py (``losses``); Django's Redis cache: core/redis_cache.py (the shared
cache the board windows are claimed in and the progress rows wait in).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
from typing import Any

from channels.consumer import AsyncConsumer
from channels_redis import pubsub, utils
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from prometheus_client import CollectorRegistry, Counter

from core.live.channel_layer import BoundedLoopLayer, ResettingShard
from core.redis_cache import SharedClientRedisCacheClient, SharedRedisCache

# The library's methods core/live/channel_layer.py overrides, as channels-redis 4.3.0 has them:
# a change to one (how it reads, what it does on an error) must be read, and the override
# checked against it, before its hash is updated here.
OVERRIDDEN = {
    pubsub.RedisSingleShardConnection._do_receiving: (
        "a822736dcb875e43bfe3b5461dfe0028401fb768fa5c9708cd1cde61bed321a7"
    ),
    pubsub.RedisPubSubLoopLayer._subscribe_to_channel: (
        "3da2e955db06450f59a634cc90dcfe4a804e703d61d93250fae532ba91875425"
    ),
    pubsub.RedisPubSubChannelLayer._get_layer: (
        "1862b87a25ac72b2512da2fa30e56f87ca4b37f6874f1385d2ceb5e8b442079c"
    ),
    # core/live/consumers.py DirectDispatch: the same, without close_old_connections.
    AsyncConsumer.dispatch: "39f34e7d4fb0f6552de4ade665b943fe78137379702af6b58c79a14c49a75520",
    # core/redis_cache.py SharedClientRedisCacheClient: the same, one client per pool.
    RedisCacheClient.get_client: (
        "ba56fb39ace75b84f1c6abfdecb0e76ae2e507c9ad0014f2175b1b1e51b11e0f"
    ),
}


def test_the_shard_keeps_the_attributes_the_override_reads_and_writes() -> None:
    layer = pubsub.RedisPubSubLoopLayer(hosts=[{"address": "redis://127.0.0.1:1"}])
    shard = layer._shards[0]
    assert isinstance(shard, pubsub.RedisSingleShardConnection)
    for name in ("_subscribed_to", "_lock", "_redis", "_pubsub", "_receive_task"):
        assert hasattr(shard, name), name
    for name in ("_do_receiving", "_receive_message", "subscribe", "publish"):
        assert callable(getattr(pubsub.RedisSingleShardConnection, name)), name
    assert layer._get_shard("group") is shard
    assert isinstance(layer.channels, dict) and isinstance(layer.groups, dict)
    assert callable(utils._wrap_close)


def test_the_layer_builds_its_shards_from_the_hosts_as_the_override_rebuilds_them() -> None:
    layer = BoundedLoopLayer(hosts=[{"address": "redis://127.0.0.1:1"}])
    assert [type(shard) for shard in layer._shards] == [ResettingShard]
    assert layer._shards[0].host == {"address": "redis://127.0.0.1:1"}


def test_the_channel_layer_keeps_what_its_per_loop_layers_are_made_from() -> None:
    layer = pubsub.RedisPubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1"}])
    assert layer._args == () and layer._kwargs == {"hosts": [{"address": "redis://127.0.0.1:1"}]}
    assert layer._layers == {}


def test_the_methods_overridden_are_the_ones_the_overrides_were_written_against() -> None:
    for method, expected in OVERRIDDEN.items():
        source = inspect.getsource(method)
        assert hashlib.sha256(source.encode()).hexdigest() == expected, source


def test_a_future_awaited_is_yielded_flagged_as_eager_start_expects() -> None:
    """core/live/eager_start.py takes ``_asyncio_future_blocking`` off what its coroutine
    yields before awaiting it itself, as a task does."""
    loop = asyncio.new_event_loop()
    try:
        future = loop.create_future()
        assert future._asyncio_future_blocking is False
        waiting = future.__await__()
        assert next(waiting) is future
        assert future._asyncio_future_blocking is True
        future._asyncio_future_blocking = False  # writable, on the C future too
    finally:
        loop.close()


def test_a_counter_child_keeps_its_value_where_losses_reads_it() -> None:
    counter = Counter("pinned", "a counter", ["where"], registry=CollectorRegistry())
    counter.labels("send").inc(2)
    assert counter.labels("send")._value.get() == 2


def test_the_redis_cache_keeps_what_the_shared_client_reads() -> None:
    # (django-stubs leaves these private names out: read untyped)
    cache: Any = SharedRedisCache("redis://127.0.0.1:1/8", {"OPTIONS": {"db": 8}})
    assert isinstance(cache._options, dict) and cache._options["db"] == 8
    assert cache._class is SharedClientRedisCacheClient
    client: Any = cache._cache  # built from _class and _options, with no connection yet
    pool = client._get_connection_pool(True)
    assert client._get_connection_pool(True) is pool
    assert client._client.__name__ == "Redis"
    assert type(client) is SharedClientRedisCacheClient
    assert issubclass(SharedRedisCache, RedisCache)
