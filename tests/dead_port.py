"""A local TCP port where nothing listens, held so that nothing can start listening there.

Outage tests point a client (Redis, PostgreSQL) at it: a socket bound to the port but
never listening makes every connection attempt fail at once (connection refused), and as
long as it stays bound no other process can take the port. Better than assuming that
some fixed port (6390, say) is free on a shared machine.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def dead_port() -> Iterator[int]:
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind(("127.0.0.1", 0))  # bound, never listening
        port = int(holder.getsockname()[1])
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            assert probe.connect_ex(("127.0.0.1", port)) != 0, f"port {port} answers"
        finally:
            probe.close()
        yield port
    finally:
        holder.close()
