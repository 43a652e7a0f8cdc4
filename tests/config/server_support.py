"""The production server (``scripts/dev.py run --prod``'s command) started for a test, on
the test database and a redis-server of the test's own."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator

from django.db import connection

from tests.dead_port import dead_port
from tests.dev_script import ROOT, dev_script
from tests.own_redis import OwnRedis


@contextlib.contextmanager
def running_server(
    own_redis: OwnRedis, workers: int = 1, **extra_env: str
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """The production command on the test database and the test's own Redis: the process
    and its port, once it answers /health/; killed (its process group) on the way out."""
    dev = dev_script()
    settings_dict = connection.settings_dict
    database_url = (
        f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD'] or ''}"
        f"@{settings_dict['HOST']}:{settings_dict['PORT']}/{settings_dict['NAME']}"
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": own_redis.url,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        **extra_env,
    }
    with dead_port() as port:
        pass  # proven free a moment ago; the server takes it now
    command = dev.server_command(host="127.0.0.1", port=port, prod=True, workers=workers, env=env)
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2):
                    break
            except OSError:
                assert process.poll() is None, "the server exited"
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        yield process, port
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # our own server's group, by its id
            process.wait()
