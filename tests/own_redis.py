"""A redis-server of the test's own, on a port proven free, that the test stops and restarts.

Outage tests must never touch the machine's shared Redis: they start this one (Debian's
``redis-server``, no persistence), point the piece under test at it, stop it to make the
outage, and start it again on the same port to end it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.dead_port import dead_port


class OwnRedis:
    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()  # our own process, by its id
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH (Debian's redis-server)")
    with dead_port() as port:
        pass  # proven free a moment ago; redis-server takes it now
    server = OwnRedis(port)
    server.start()
    try:
        yield server
    finally:
        server.stop()
