"""Channels is wired: the ASGI app routes WebSockets, and the channel layer delivers."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application


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
    from channels_redis.core import RedisChannelLayer

    # A layer of its own, built from the settings: closing its pools must not close those
    # the process's shared layer holds on other loops (the live broadcaster's).
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    assert isinstance(layer, RedisChannelLayer)
    try:
        message = await round_trip_through_a_group(layer)
        assert message == {"type": "leaderboard.update", "rank": 1}
    finally:
        await layer.close_pools()


@pytest.mark.asyncio
async def test_websocket_from_a_foreign_origin_is_refused() -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/anything/", headers=[(b"origin", b"https://evil.example.com")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_websocket_router_rejects_unknown_paths() -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/no-such-route/", headers=[(b"origin", b"http://localhost")]
    )
    with pytest.raises(ValueError, match="No route found"):
        await communicator.connect()
