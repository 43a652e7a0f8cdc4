"""A minimal play-socket client for the load benchmarks (ws/attempts/<id>/play/).

Raw asyncio streams, as the HTTP client of ``bench.api_load_bench``: the RFC 6455
handshake with ``Authorization: Token <key>``, masked text frames out, unmasked frames in
(uvicorn's), pings answered. One batch at a time: ``ask`` sends one ``actions`` message
and reads frames until its answer. A measuring instrument, not a general client.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import struct
from typing import Any

OP_TEXT, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x8, 0x9, 0xA


class SocketClosed(Exception):
    pass


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame of any length."""
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


class PlaySocketClient:
    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.next_id = 0
        self.ready: dict[str, Any] = {}

    async def open(self, attempt_id: int) -> dict[str, Any]:
        """Connect and read the server's ``ready`` message."""
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write(
            (
                f"GET /ws/attempts/{attempt_id}/play/ HTTP/1.1\r\n"
                f"Host: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Authorization: Token {self.token}\r\n\r\n"
            ).encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise SocketClosed(f"handshake refused: {head.splitlines()[0]!r}")
        self.ready = await self._message()
        if self.ready.get("type") != "ready":
            raise SocketClosed(f"no ready message: {self.ready}")
        return self.ready

    async def _frame(self) -> tuple[int, bytes]:
        assert self.reader is not None
        first, second = await self.reader.readexactly(2)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return first & 0x0F, await self.reader.readexactly(size)

    async def _message(self) -> dict[str, Any]:
        """The next text message (pings answered on the way)."""
        assert self.writer is not None
        while True:
            opcode, payload = await self._frame()
            if opcode == OP_TEXT:
                return dict(json.loads(payload))
            if opcode == OP_PING:
                self.writer.write(client_frame(OP_PONG, payload))
            elif opcode == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise SocketClosed(f"closed by the server ({code})")

    async def ask(self, payload: dict[str, Any]) -> tuple[int, Any]:
        """One batch: (the HTTP status it stands for, the body)."""
        assert self.writer is not None
        self.next_id += 1
        message = {"type": "actions", "id": self.next_id, **payload}
        self.writer.write(client_frame(OP_TEXT, json.dumps(message).encode()))
        await self.writer.drain()
        while True:
            answer = await self._message()
            if answer.get("type") == "answer" and answer.get("id") == self.next_id:
                return int(answer["status"]), answer["body"]

    async def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.write(client_frame(OP_CLOSE, struct.pack("!H", 1000)))
                self.writer.close()
                await self.writer.wait_closed()
        self.reader = self.writer = None
