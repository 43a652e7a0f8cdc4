"""SIGTERM stops the production server in bounded time, even with Redis gone under watchers.

The issue's operator found both uvicorn workers still in graceful shutdown after 60 s
(socket still accepting) once Redis had been killed under connected watchers. Here the
server is started exactly as ``scripts/dev.py run --prod`` would (its ``server_command``),
on the test database and a redis-server of the test's own; watchers connect, Redis is
stopped, then SIGTERM: the server must exit within its graceful timeout and every watcher
must see its socket closed with a code (1012, service restart: uvicorn's; a client
reconnects on it), not left hanging.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
import redis
from django.conf import settings
from rest_framework.authtoken.models import Token
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from games.models import Deal
from tests.config.server_support import running_server
from tests.dev_script import dev_script
from tests.factories import make_challenge, make_player
from tests.games.api_support import solution_of, solved_deal
from tests.games.hints_support import off_the_solution
from tests.own_redis import OwnRedis, own_redis
from tests.waiting import wait_for

__all__ = ["own_redis"]

# The production command (`run --prod`) is served here as the full stack serves it, on
# PostgreSQL and a Redis of the test's own: those tests carry `postgres`.
pytestmark = pytest.mark.django_db(transaction=True)
FULL_STACK = pytest.mark.postgres


GRACE = int(dev_script().GRACEFUL_SHUTDOWN_SECONDS)


def test_the_production_command_bounds_shutdown_and_trusts_no_proxy_by_default() -> None:
    dev = dev_script()
    words = dev.server_command(host="127.0.0.1", port=8000, prod=True, workers=2, env={})
    at = words.index("--timeout-graceful-shutdown")
    assert int(words[at + 1]) == dev.GRACEFUL_SHUTDOWN_SECONDS <= 30
    at = words.index("--forwarded-allow-ips")
    assert words[at + 1] == ""
    assert int(words[words.index("--ws-max-size") + 1]) <= 64 * 1024
    words = dev.server_command(host="h", port=1, env={"FORWARDED_ALLOW_IPS": "10.0.0.2"})
    assert words[words.index("--forwarded-allow-ips") + 1] == "10.0.0.2"


@pytest.fixture
def server(own_redis: OwnRedis) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    with running_server(own_redis) as running:
        yield running


def close_code(watcher: ClientConnection) -> int | None:
    try:
        while True:
            watcher.recv(timeout=15)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return -1


def watch_and_terminate(
    process: subprocess.Popen[bytes], port: int, before_sigterm: Callable[[], None]
) -> tuple[float, list[int | None]]:
    """Five watchers connect; ``before_sigterm`` runs; SIGTERM. (seconds to exit, codes)"""
    challenge = make_challenge()
    with contextlib.ExitStack() as stack:
        watchers = [
            stack.enter_context(
                connect(
                    f"ws://127.0.0.1:{port}/ws/challenges/{challenge.pk}/",
                    origin=cast(Any, f"http://127.0.0.1:{port}"),
                    open_timeout=10,
                )
            )
            for _ in range(5)
        ]
        for watcher in watchers:
            assert '"snapshot"' in str(watcher.recv(timeout=10))
        before_sigterm()
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        codes = [close_code(watcher) for watcher in watchers]
        process.wait(timeout=GRACE + 10)
        return time.monotonic() - started, codes


@FULL_STACK
def test_sigterm_closes_the_watchers_and_exits_within_the_graceful_timeout(
    server: tuple[subprocess.Popen[bytes], int],
) -> None:
    took, codes = watch_and_terminate(*server, before_sigterm=lambda: None)
    assert took < GRACE + 5, took
    assert codes == [1012] * 5, codes  # uvicorn's "service restart": clients reconnect


@FULL_STACK
def test_sigterm_right_after_redis_died_under_watchers_exits_in_bounded_time(
    server: tuple[subprocess.Popen[bytes], int], own_redis: OwnRedis
) -> None:
    took, codes = watch_and_terminate(*server, before_sigterm=own_redis.stop)
    assert took < GRACE + 5, took
    # Each watcher is closed by whichever comes first: the outage (4503) or the shutdown.
    assert all(code in (1012, 4503) for code in codes), codes


@FULL_STACK
def test_sigterm_does_not_wait_for_a_request_stuck_in_a_thread(own_redis: OwnRedis) -> None:
    """A practice hint off the known lines waits for a Celery worker (here: none) for up to
    HINT_SECONDS + HINT_QUEUE_SECONDS in one of the process's HTTP threads. Shutdown must not
    wait for it past the graceful timeout."""
    player = make_player()
    token = Token.objects.create(user=player).key
    deal = solved_deal(pool=Deal.Pool.PRACTICE)
    with running_server(own_redis, HINT_SECONDS="1", HINT_QUEUE_SECONDS="120") as (process, port):

        def call(method: str, path: str, body: Any = None) -> Any:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}",
                data=None if body is None else json.dumps(body).encode(),
                method=method,
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=200) as response:
                return json.loads(response.read())

        attempt_id = call("POST", "/api/v1/practice/start/", {"variant": deal.variant})["id"]
        detours = off_the_solution(deal, solution_of(deal))  # a hint there is a search
        call("POST", f"/api/v1/attempts/{attempt_id}/actions/", {"offset": 0, "actions": detours})

        def ask_hint() -> None:
            with contextlib.suppress(OSError):  # the server goes away under it
                call("GET", f"/api/v1/attempts/{attempt_id}/hint/")

        waiting = threading.Thread(target=ask_hint, daemon=True)
        waiting.start()
        # The hint's search is on the broker's queue (no worker takes it): the request now
        # waits for it in one of the server's HTTP threads.
        broker = redis.Redis.from_url(own_redis.url)
        queue = settings.CELERY_TASK_DEFAULT_QUEUE
        wait_for(lambda: broker.llen(queue), 30, "the hint's search on the broker's queue")
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=GRACE + 15)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {GRACE + 15} s after SIGTERM")
        assert time.monotonic() - started < GRACE + 5


@FULL_STACK
def test_a_frame_over_the_servers_limit_is_refused_and_boards_go_uncompressed(
    own_redis: OwnRedis,
) -> None:
    with running_server(own_redis) as (_, port):
        challenge = make_challenge()
        with connect(
            f"ws://127.0.0.1:{port}/ws/challenges/{challenge.pk}/",
            origin=cast(Any, f"http://127.0.0.1:{port}"),
            open_timeout=10,
        ) as watcher:
            assert '"snapshot"' in str(watcher.recv(timeout=10))
            # The client offered permessage-deflate (websockets does by default); the live
            # board is sent uncompressed (docs/scaling.md), so none was agreed.
            assert watcher.response is not None
            assert "Sec-WebSocket-Extensions" not in watcher.response.headers
            watcher.send("x" * (1 << 20))
            assert close_code(watcher) == 1009  # message too big
