"""The production server (``scripts/dev.py run --prod``) as the load benchmarks start it."""

from __future__ import annotations

import os
import secrets
import signal
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
