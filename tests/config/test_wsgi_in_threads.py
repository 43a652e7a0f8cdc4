"""The HTTP bridge of the server (core/wsgi_in_threads.py), driven with ASGI messages.

The browser tests run it for real inside uvicorn (pages, static files, the API); these
check what they cannot see: bodies in pieces, big answers streamed, oversized bodies,
and that the application's iterable is closed on the thread that ran the request.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from core.wsgi_in_threads import ThreadedWSGIApp


class EchoApp:
    """Answers the method, path, query and body; remembers the threads it ran and closed on."""

    def __init__(self, answer_size: int = 0, pieces: int = 1) -> None:
        self.answer_size = answer_size
        self.pieces = pieces
        self.ran_on: list[int] = []
        self.closed_on: list[int] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        self.ran_on.append(threading.get_ident())
        body = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"] or 0))
        start_response("201 Created", [("Content-Type", "text/plain"), ("X-Echo", "yes")])
        return self._answer(environ, body)

    def _answer(self, environ: dict[str, Any], body: bytes) -> Iterator[bytes]:
        try:
            yield f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}?".encode()
            yield environ["QUERY_STRING"].encode() + b" " + body
            for _ in range(self.pieces):
                yield b"x" * (self.answer_size // self.pieces)
        finally:
            self.closed_on.append(threading.get_ident())


def call(
    app: ThreadedWSGIApp,
    body_pieces: list[bytes],
    *,
    disconnect: bool = False,
    headers: tuple[tuple[bytes, bytes], ...] = (),
    unread: list[int] | None = None,
) -> list[dict[str, Any]]:
    """The messages the app sent; ``unread`` gets the number of body messages it left."""
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/thing/",
        "query_string": b"a=1",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"text/plain"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    incoming = [
        {"type": "http.request", "body": piece, "more_body": index < len(body_pieces) - 1}
        for index, piece in enumerate(body_pieces)
    ]
    if disconnect:
        incoming = [*incoming[:-1], {"type": "http.disconnect"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    if unread is not None:
        unread.append(len(incoming))
    return sent


def body_of(messages: list[dict[str, Any]]) -> bytes:
    return b"".join(m["body"] for m in messages if m["type"] == "http.response.body")


def test_a_short_answer_is_sent_whole_with_status_and_headers() -> None:
    wsgi = EchoApp()
    sent = call(ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=1000), [b"hello"])
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 201
    assert (b"x-echo", b"yes") in sent[0]["headers"]
    assert sent[1]["body"] == b"POST /api/v1/thing/?a=1 hello"
    assert not sent[1].get("more_body", False)


def test_a_body_sent_in_pieces_reaches_the_application_whole() -> None:
    sent = call(
        ThreadedWSGIApp(EchoApp(), workers=2, max_body_bytes=1000), [b"one ", b"two ", b"3"]
    )
    assert body_of(sent) == b"POST /api/v1/thing/?a=1 one two 3"


def test_a_long_answer_is_streamed_and_closed_on_the_request_thread() -> None:
    wsgi = EchoApp(answer_size=40_000, pieces=8)
    app = ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=1000, buffer_bytes=10_000)
    sent = call(app, [b"big"])
    assert sent[0]["type"] == "http.response.start"
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert len(bodies) > 2, "sent in several chunks"
    assert all(m["more_body"] for m in bodies[:-1]) and not bodies[-1]["more_body"]
    assert body_of(sent) == b"POST /api/v1/thing/?a=1 big" + b"x" * 40_000
    assert wsgi.closed_on == wsgi.ran_on
    assert wsgi.ran_on[0] != threading.get_ident(), "ran on a pool thread"


def test_a_body_over_the_limit_is_refused_with_413_before_the_application() -> None:
    wsgi = EchoApp()
    sent = call(ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=10), [b"0123456", b"789ab"])
    assert sent[0]["status"] == 413
    assert b"too large" in body_of(sent)
    assert wsgi.ran_on == []


def test_a_body_declared_over_the_limit_is_read_and_dropped_then_refused() -> None:
    """A client that sends its whole body before reading (Python's urllib) must find the
    413 there, not a connection closed under its upload: the body is drained first."""
    wsgi = EchoApp()
    unread: list[int] = []
    sent = call(
        ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=10),
        [b"0123456", b"789ab", b"cdef"],
        headers=((b"content-length", b"16"),),
        unread=unread,
    )
    assert sent[0]["status"] == 413 and wsgi.ran_on == []
    assert unread == [0]


def test_draining_a_refused_body_stops_at_its_bound() -> None:
    wsgi = EchoApp()
    unread: list[int] = []
    sent = call(
        ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=10, drain_bytes=20),
        [b"x" * 8] * 10,
        headers=((b"content-length", b"80"),),
        unread=unread,
    )
    assert sent[0]["status"] == 413 and wsgi.ran_on == []
    assert unread == [7]  # 24 bytes read (past the bound of 20), the rest left


def test_a_client_waiting_for_100_continue_is_refused_before_a_byte_is_read() -> None:
    wsgi = EchoApp()
    sent = call(
        ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=10),
        [],  # receive() would fail: nothing to read
        headers=((b"content-length", b"11"), (b"expect", b"100-continue")),
    )
    assert sent[0]["status"] == 413 and wsgi.ran_on == []


def test_a_client_gone_before_its_body_arrived_runs_nothing() -> None:
    wsgi = EchoApp()
    sent = call(ThreadedWSGIApp(wsgi, workers=2, max_body_bytes=100), [b"a", b"b"], disconnect=True)
    assert sent == [] and wsgi.ran_on == []


def test_websockets_are_not_its_business() -> None:
    app = ThreadedWSGIApp(EchoApp(), workers=1, max_body_bytes=10)

    async def nothing() -> dict[str, Any]:
        return {}

    async def ignore(message: dict[str, Any]) -> None:
        return None

    with pytest.raises(ValueError, match="HTTP only"):
        asyncio.run(app({"type": "websocket"}, nothing, ignore))


def test_the_server_refuses_an_oversized_body_in_the_api_error_shape() -> None:
    import json

    from config.asgi import MAX_BODY_BYTES, application

    piece = b"x" * (1 << 20)
    pieces = [piece] * (MAX_BODY_BYTES // len(piece) + 1)
    sent = call(application.application_mapping["http"], pieces)
    assert sent[0]["status"] == 413
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    error = json.loads(body_of(sent))["error"]
    assert error["code"] == "too_large" and error["details"]["limit_bytes"] == MAX_BODY_BYTES
