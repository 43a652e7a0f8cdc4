"""An ASGI application that runs a WSGI application on a thread pool, one hop each way.

uvicorn serves the WebSockets (Channels) and HTTP in one process; every view of this
project is synchronous, so HTTP requests run in Django's WSGI handler on a fixed pool of
threads (`WEB_THREADS`). The generic bridge that did this before (a2wsgi) crossed between
the event loop and the request's thread four times a request, each time with the thread
blocked until the loop answered (the body, the status line, the body chunk, the end): on
two cores that hand-over cost a third of an action post's CPU (docs/api.md). Here:

1. the event loop reads the whole request body (a request larger than
   ``max_body_bytes``, or that says it is, is answered 413 without reaching Django; the
   rest of its body, up to ``drain_bytes``, is read and dropped first, so that a client
   that sends its whole body before reading the answer reads the 413 instead of finding
   the connection closed under it);
2. one thread of the pool runs the WSGI application and reads its answer;
3. an answer of at most ``buffer_bytes`` (every API answer) comes back whole and the loop
   sends it; a longer one (a large static file) is streamed from the thread, chunk by
   chunk, each waiting until the loop has sent it.

The WSGI iterable is closed in the thread that ran the request, as a WSGI server must:
Django's `request_finished` (which returns the thread's database connection) runs there.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from a2wsgi.wsgi import build_environ

Message = dict[str, Any]
Send = Callable[[Message], Coroutine[Any, Any, None]]
Receive = Callable[[], Awaitable[Message]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyTooLarge(Exception):
    def __init__(self, *, more: bool = True) -> None:
        super().__init__()
        self.more = more  # the client has more of the body to send


class ClientGone(Exception):
    pass


async def read_body(receive: Receive, limit: int) -> bytes:
    """The request body, whole; BodyTooLarge past ``limit``, ClientGone on disconnect."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(more=message.get("more_body", False))
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def drain_body(receive: Receive, limit: int) -> None:
    """Read and drop what is left of the request body, up to ``limit`` bytes."""
    size = 0
    while size <= limit:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def expects_continue(scope: dict[str, Any]) -> bool:
    """Does the client wait for "100 Continue" before sending its body (none comes unless
    the body is read: it is answered without one)?"""
    return any(
        name.lower() == b"expect" and value.lower() == b"100-continue"
        for name, value in scope.get("headers", ())
    )


def declared_length(scope: dict[str, Any]) -> int:
    """The request's Content-Length header (0 when absent or not a number)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _start_message(status: str, headers: list[tuple[str, str]]) -> Message:
    return {
        "type": "http.response.start",
        "status": int(status.split(" ", 1)[0]),
        "headers": [
            (name.strip().encode("latin1").lower(), value.strip().encode("latin1"))
            for name, value in headers
        ],
    }


class _Exchange:
    """One request's answer, built in a pool thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, send: Send, buffer_bytes: int):
        self.loop = loop
        self.send = send
        self.buffer_bytes = buffer_bytes
        self.start: Message | None = None
        self.streamed = False

    def _start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], None]:
        if exc_info is not None and self.streamed:
            raise exc_info[1].with_traceback(exc_info[2])
        self.start = _start_message(status, headers)
        return self._write

    def _write(self, chunk: bytes) -> None:  # WSGI's legacy write(): send at once
        self._stream([chunk], more=True)

    def _send_from_thread(self, message: Message) -> None:
        asyncio.run_coroutine_threadsafe(self.send(message), self.loop).result()

    def _stream(self, chunks: list[bytes], *, more: bool) -> None:
        if not self.streamed:
            assert self.start is not None, "the application wrote before start_response"
            self._send_from_thread(self.start)
            self.streamed = True
        self._send_from_thread(
            {"type": "http.response.body", "body": b"".join(chunks), "more_body": more}
        )

    def run(self, app: WSGIApp, environ: dict[str, Any]) -> list[Message]:
        """Run the application; the messages left for the loop to send (none if streamed)."""
        iterable = app(environ, self._start_response)
        try:
            chunks: list[bytes] = []
            size = 0
            for chunk in iterable:
                if not chunk:
                    continue
                chunks.append(chunk)
                size += len(chunk)
                if size > self.buffer_bytes:
                    self._stream(chunks, more=True)
                    chunks, size = [], 0
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        if self.streamed:
            self._stream(chunks, more=False)
            return []
        assert self.start is not None, "the application returned before start_response"
        return [self.start, {"type": "http.response.body", "body": b"".join(chunks)}]


class ThreadedWSGIApp:
    """ASGI (HTTP only) in front of a WSGI application run on ``workers`` threads."""

    def __init__(
        self,
        app: WSGIApp,
        *,
        workers: int,
        max_body_bytes: int,
        too_large: tuple[str, bytes] = ("text/plain", b"Request body too large."),
        buffer_bytes: int = 1 << 20,
        drain_bytes: int = 16 << 20,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.drain_bytes = drain_bytes  # of a refused body, read and dropped before the 413
        self.too_large = too_large  # (content type, body) of the 413 answer
        self.buffer_bytes = buffer_bytes
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="http")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"{type(self).__name__} serves HTTP only, not {scope['type']}")
        try:
            if declared_length(scope) > self.max_body_bytes:
                raise BodyTooLarge  # refused on its word, without reading a byte of it
            body = await read_body(receive, self.max_body_bytes)
        except ClientGone:
            return
        except BodyTooLarge as refused:
            if refused.more and not expects_continue(scope):
                await drain_body(receive, self.drain_bytes)
            content_type, answer = self.too_large
            await send(_start_message("413", [("content-type", content_type)]))
            await send({"type": "http.response.body", "body": answer})
            return
        loop = asyncio.get_running_loop()
        exchange = _Exchange(loop, send, self.buffer_bytes)
        environ = cast(dict[str, Any], build_environ(scope, io.BytesIO(body)))  # type: ignore[arg-type]
        environ["CONTENT_LENGTH"] = str(len(body))
        messages = await loop.run_in_executor(self.executor, exchange.run, self.app, environ)
        for message in messages:
            await send(message)
