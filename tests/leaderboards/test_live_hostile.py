"""The live board's socket under hostile frames and a Redis outage: a close code, no crash.

A frame of 100,000 ``[`` made the JSON decoder recurse past Python's limit and the socket
drop with "Exception in ASGI application"; during a Redis outage every reconnect logged an
ASGI traceback. Now: 4400 for the frame, 4503 and one warning line for the outage.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from core.live.channel_layer import PubSubChannelLayer
from tests.dead_port import dead_port
from tests.factories import make_challenge
from tests.leaderboards.live_support import (
    LIVE_SOCKET_TEST,
    ORIGIN,
    db,
    watch,
)

pytestmark = LIVE_SOCKET_TEST


@pytest.mark.parametrize(
    "frame",
    ["[" * 100_000, '{"type": "ping", "pad": "' + "x" * 1_000_000 + '"}', "\ud800"],
    ids=["100000-brackets", "a-megabyte-ping", "lone-surrogate"],
)
async def test_a_hostile_frame_closes_with_4400(frame: str) -> None:
    challenge = await db(make_challenge)()
    communicator, _ = await watch(challenge.pk)
    await communicator.send_to(text_data=frame)
    assert await communicator.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": 4400,
    }
    await communicator.wait()


@pytest.mark.redis
async def test_connecting_during_a_redis_outage_closes_4503_with_one_log_line(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    challenge = await db(make_challenge)()
    with dead_port() as port, caplog.at_level(logging.INFO):
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "core.live.PubSubChannelLayer",
                "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"], "prefix": "asgi-outage"},
            }
        }
        for _ in range(3):
            caplog.clear()
            communicator = WebsocketCommunicator(
                application, f"/ws/challenges/{challenge.pk}/", headers=[ORIGIN]
            )
            connected, _ = await communicator.connect(timeout=5)
            assert connected, "accepted first, so that the browser sees the code"
            assert await communicator.receive_output(timeout=5) == {
                "type": "websocket.close",
                "code": 4503,
            }
            await communicator.wait(timeout=5)  # raises if the application raised
            warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(warnings) == 1, [r.getMessage() for r in warnings]
            assert "4503" in warnings[0].getMessage() and not warnings[0].exc_info
        # Nothing is left behind by the refused connections (a queue each, before).
        layer = get_channel_layer()
        assert isinstance(layer, PubSubChannelLayer)
        assert layer._get_layer().channels == {}
