"""Channels is wired: the ASGI app routes WebSockets, and the channel layer delivers."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.own_redis import OwnRedis, own_redis

__all__ = ["own_redis"]


async def round_trip_through_a_group(layer: Any = None) -> dict[str, object]:
    layer = layer or get_channel_layer()
    assert layer is not None
    channel = await layer.new_channel()
    group = f"test-{uuid.uuid4().hex}"
    await layer.group_add(group, channel)
    try:
        await layer.group_send(group, {"type": "leaderboard.update", "rank": 1})
        message: dict[str, object] = await asyncio.wait_for(layer.receive(channel), timeout=5)
    finally:
        await layer.group_discard(group, channel)
    return message


@pytest.mark.asyncio
async def test_configured_channel_layer_delivers_group_messages() -> None:
    message = await round_trip_through_a_group()
    assert message == {"type": "leaderboard.update", "rank": 1}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_redis_channel_layer_round_trip() -> None:
    from core.live.channel_layer import PubSubChannelLayer

    # A layer of its own, built from the settings: closing its connections must not close
    # those the process's shared layer holds on other loops (the live broadcaster's).
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    assert isinstance(layer, PubSubChannelLayer)
    try:
        message = await round_trip_through_a_group(layer)
        assert message == {"type": "leaderboard.update", "rank": 1}
    finally:
        await layer.flush()


@pytest.mark.asyncio
async def test_websocket_from_a_foreign_origin_is_refused() -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/anything/", headers=[(b"origin", b"https://evil.example.com")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_websocket_router_refuses_unknown_paths_at_the_handshake() -> None:
    for path in ("/ws/no-such-route/", "/ws/attempts/x/play/", "/"):
        communicator = WebsocketCommunicator(
            application, path, headers=[(b"origin", b"http://localhost")]
        )
        connected, _ = await communicator.connect()
        assert not connected, path
        await communicator.disconnect()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_watcher_that_stops_reading_keeps_only_the_newest_messages() -> None:
    """Its queue in the process holds `capacity` messages, the newest; a reader next to it
    gets every message."""
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    stuck, reading = await layer.new_channel(), await layer.new_channel()
    group = f"test-{uuid.uuid4().hex}"
    for channel in (stuck, reading):
        await layer.group_add(group, channel)
    received = []
    try:
        for n in range(150):
            await layer.group_send(group, {"type": "board.update", "n": n})
            received.append(await asyncio.wait_for(layer.receive(reading), timeout=5))
        first_kept = await asyncio.wait_for(layer.receive(stuck), timeout=5)
    finally:
        await layer.flush()
    assert [message["n"] for message in received] == list(range(150))
    assert first_kept["n"] == 150 - 100  # capacity 100 (settings): the 50 oldest dropped


@pytest.mark.asyncio
async def test_a_group_message_costs_redis_one_publish_whatever_the_group_size(
    own_redis: OwnRedis,
) -> None:
    from core.live.channel_layer import PubSubChannelLayer

    layer = PubSubChannelLayer(hosts=[own_redis.url])
    server = redis.asyncio.Redis.from_url(own_redis.url)
    group = "challenge_1"
    try:
        channels = [await layer.new_channel() for _ in range(200)]
        for channel in channels:
            await layer.group_add(group, channel)
        await server.config_resetstat()
        await layer.group_send(group, {"type": "board.update", "text": "{}"})
        messages = await asyncio.gather(
            *(asyncio.wait_for(layer.receive(channel), timeout=5) for channel in channels)
        )
        stats = await server.info("commandstats")
    finally:
        await layer.flush()
        await server.aclose()
    assert all(message["type"] == "board.update" for message in messages)
    assert stats["cmdstat_publish"]["calls"] == 1
    assert sum(entry["calls"] for entry in stats.values()) <= 3  # publish, resetstat, info


@pytest.mark.asyncio
async def test_deployments_on_numbered_databases_of_one_redis_do_not_hear_each_other(
    own_redis: OwnRedis,
) -> None:
    """Pub/sub channels are server-wide; the database number in REDIS_URL keeps them apart."""
    from core.live.channel_layer import PubSubChannelLayer, prefix_for

    def layer_on(database: int) -> PubSubChannelLayer:
        url = f"redis://127.0.0.1:{own_redis.port}/{database}"
        return PubSubChannelLayer(hosts=[url], prefix=prefix_for(url))

    first, second, first_again = layer_on(1), layer_on(2), layer_on(1)
    listening = {}
    for layer in (second, first_again):
        listening[layer] = await layer.new_channel()
        await layer.group_add("challenge_1", listening[layer])
    try:
        await first.group_send("challenge_1", {"type": "board.update", "text": "{}"})
        heard = await asyncio.wait_for(first_again.receive(listening[first_again]), timeout=5)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(second.receive(listening[second]), timeout=0.5)
    finally:
        for layer in (first, second, first_again):
            await layer.flush()
    assert heard["type"] == "board.update"
