"""The private names of channels-redis that core/channel_layer.py reaches, pinned: each
test fails on a version of the library where the name, or the code an override replaces,
is no longer what the override was written against (channels-redis 4.3.0)."""

from __future__ import annotations

import hashlib
import inspect

from channels_redis import pubsub, utils

from core.channel_layer import BoundedLoopLayer, ResettingShard

# The library's methods core/channel_layer.py overrides, as channels-redis 4.3.0 has them:
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
