"""The production server (``scripts/dev.py run --prod``) as the load benchmarks start it,
with what a bench needs beside it: a free port, and files enough for its sockets."""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The server's own default (scripts/dev.py run --prod, which imports nothing of the project).
DEFAULT_WORKERS = 2 * (os.cpu_count() or 1)


def start_server(
    *,
    port: int,
    workers: int,
    database_url: str,
    redis_url: str,
    extra_env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start it in a session of its own and wait (120 s at most) until /health/ answers."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": secrets.token_urlsafe(40),
        "LOG_LEVEL": "WARNING",
        **(extra_env or {}),
    }
    command = [sys.executable, "scripts/dev.py", "run", "--prod", "--port", str(port)]
    command += ["--workers", str(workers)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2):
                return server
        except OSError:
            if server.poll() is not None:
                sys.exit(f"the server exited with {server.returncode}")
            time.sleep(0.5)
    stop_server(server)
    sys.exit("the server did not answer /health/ within 120 s")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's whole process group, SIGKILL after 20 s."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def allow_open_files(count: int) -> None:
    """Raise this process's soft limit of open files to ``count`` (the hard limit at most;
    never lowered)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count)), hard))


def bench_parser(description: str | None, database: str, redis_db: int) -> argparse.ArgumentParser:
    """The options every bench of a served stack takes: the bench's own PostgreSQL database
    and Redis database (defaults on this machine), the server's port and workers."""
    parser = argparse.ArgumentParser(description=(description or "").split("\n")[0])
    parser.add_argument("--database-url", default=f"postgres://postgres@127.0.0.1:5432/{database}")
    parser.add_argument("--redis-url", default=f"redis://127.0.0.1:6379/{redis_db}")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    return parser
