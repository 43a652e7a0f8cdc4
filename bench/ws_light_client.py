"""A minimal WebSocket watcher for the fan-out benchmarks: as little client CPU as can be.

The benchmark's clients share the machine's two cores with the server they measure, so
every microsecond a client spends on a frame is taken from the server and shows up as
server latency. This client is an ``asyncio.Protocol`` that does the RFC 6455 handshake
itself, reads the server's frames (unmasked, unfragmented: what uvicorn sends) straight
from the bytes, answers pings, and timestamps a frame when its bytes are read off the
socket. It offers no compression (the server declines it anyway). It is a measuring
instrument, not a general client: anything unexpected ends the connection.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
import urllib.parse
from collections.abc import Callable
from typing import cast

OP_TEXT, OP_CLOSE, OP_PING = 0x1, 0x8, 0x9


def handshake(url: str, origin: str) -> bytes:
    parts = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {parts.path} HTTP/1.1\r\n"
        f"Host: {parts.netloc}\r\n"
        "Upgrade: websocket\r\n"
        "Connection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    ).encode()


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """A client frame (clients must mask), payload under 126 bytes."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes((0x80 | opcode, 0x80 | len(payload))) + mask + body


class Watcher(asyncio.Protocol):
    """Calls ``on_text(text, read_at)`` for every text frame; ``on_end(reason)`` once."""

    def __init__(
        self,
        request: bytes,
        on_text: Callable[[bytes, float], None],
        on_end: Callable[[str], None],
    ) -> None:
        self.request = request
        self.on_text = on_text
        self.on_end = on_end
        self.buffer = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.ended = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        read_at = time.monotonic()
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buffer[: self.buffer.find(b"\r\n")])
            if b" 101 " not in status:
                self.end(f"handshake refused: {status!r}")
                return
            del self.buffer[: end + 4]
            self.upgraded = True
        self._frames(read_at)

    def _frames(self, read_at: float) -> None:
        buffer = self.buffer
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, start = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start : start + length])
            del buffer[: start + length]
            opcode = first & 0x0F
            if second & 0x80 or not first & 0x80:
                self.end("masked or fragmented frame from the server")
                return
            if opcode == OP_TEXT:
                self.on_text(payload, read_at)
            elif opcode == OP_PING and self.transport is not None:
                self.transport.write(masked_frame(0xA, payload))
            elif opcode == OP_CLOSE:
                self.end(f"closed by the server: {payload[:2].hex()}")
                return

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(masked_frame(OP_CLOSE, (1000).to_bytes(2, "big")))
            self.transport.close()

    def end(self, reason: str) -> None:
        if self.transport is not None:
            self.transport.close()
        if not self.ended:
            self.ended = True
            self.on_end(reason)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended:
            self.ended = True
            self.on_end(f"connection lost: {exc!r}")


async def open_watcher(
    url: str,
    origin: str,
    on_text: Callable[[bytes, float], None],
    on_end: Callable[[str], None],
) -> Watcher:
    parts = urllib.parse.urlsplit(url)
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_connection(
        lambda: Watcher(handshake(url, origin), on_text, on_end),
        parts.hostname or "127.0.0.1",
        parts.port or 80,
    )
    return protocol
