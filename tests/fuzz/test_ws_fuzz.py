"""The live board's socket with generated and hostile frames: a pong or a 4400, no crash.

Hypothesis draws frames (any JSON, near-pings, hostile text, 100,000 brackets, a megabyte,
bytes); each goes to a fresh watcher of a real challenge, through the whole ASGI
application (origin check, session middleware, routing). The watcher must answer the one
allowed message, ``{"type": "ping"}``, with a pong and close anything else with 4400; the
application must never raise (``communicator.wait()`` would re-raise it).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.asgi import application
from tests.factories import make_challenge
from tests.fuzz.hostile import deep, json_value, nasty_text

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("FUZZ_WS_EXAMPLES", "120"))
ORIGIN = (b"origin", b"http://localhost")

frames = st.one_of(
    json_value.map(lambda value: ("text", json.dumps(value))),
    st.sampled_from(
        [
            ("text", '{"type": "ping"}'),
            ("text", '{"type": "ping", "x": 1}'),
            ("text", '{"type": "PING"}'),
            ("text", "[" * 100_000),
            ("text", deep(3000, "{")),
            ("text", '{"type": "ping", "pad": "' + "x" * 1_000_000 + '"}'),
            ("text", '"\\ud800"'),
            ("text", "1" * 5000),
            ("text", "NaN"),
            ("bytes", b"\x00\xff"),
            ("bytes", b'{"type": "ping"}'),
        ]
    ),
    nasty_text.map(lambda text: ("text", text)),
    st.binary(max_size=64).map(lambda data: ("bytes", data)),
)


async def answer_to(challenge_id: int, frame: tuple[str, Any]) -> dict[str, Any]:
    communicator = WebsocketCommunicator(
        application, f"/ws/challenges/{challenge_id}/", headers=[ORIGIN]
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    kind, data = frame
    # Straight to the application (the communicator's helper refuses an empty frame).
    await communicator.send_input(
        {"type": "websocket.receive", "text": data}
        if kind == "text"
        else {"type": "websocket.receive", "bytes": data}
    )
    output: dict[str, Any] = await communicator.receive_output(timeout=5)
    if output["type"] == "websocket.close":
        # The client answers the close, as a browser does; the application must then end
        # (wait() re-raises anything it raised).
        await communicator.send_input({"type": "websocket.disconnect", "code": output["code"]})
        await communicator.wait(timeout=5)
    else:
        await communicator.disconnect()
    return output


def test_any_frame_gets_a_pong_or_closes_4400() -> None:
    challenge = make_challenge()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frame=frames)
    def one_frame(frame: tuple[str, Any]) -> None:
        output = asyncio.run(answer_to(challenge.pk, frame))
        if frame == ("text", '{"type": "ping"}') or (
            frame[0] == "text" and _is_exact_ping(frame[1])
        ):
            assert output["type"] == "websocket.send"
            assert json.loads(output["text"]) == {"type": "pong"}
        else:
            assert output == {"type": "websocket.close", "code": 4400}, frame

    one_frame()


def _is_exact_ping(text: str) -> bool:
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message == {"type": "ping"} and len(text) <= 256
