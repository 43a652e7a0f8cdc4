"""The compose stack's proxy, for real: Debian's Caddy serving deploy/Caddyfile in front of
the ASGI server (uvicorn, trusting forwarded headers from the proxy's address only), all on
loopback. Requests and live WebSockets pass through it, and the rate limits count each
player's real address, whatever X-Forwarded-For a client sends."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from websockets.sync.client import connect

from tests.factories import make_challenge
from tests.frontend.conftest import Server, free_port, start_server, stop_server
from tests.run_support import caddy_environment, stop_process

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
LOGINS_PER_MINUTE = 2

pytestmark = [pytest.mark.caddy, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@contextlib.contextmanager
def caddy_in_front_of(server: Server, scratch: Path) -> Iterator[int]:
    """deploy/Caddyfile served by Caddy on a free loopback port, its upstream ``server``."""
    port = free_port()
    upstream_port = server.url.rsplit(":", 1)[1]
    env = caddy_environment(port, upstream_port, scratch)
    log_path = scratch / "caddy.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            ["caddy", "run", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, log_path.read_text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert time.monotonic() < deadline, f"Caddy did not listen:\n{log_path.read_text()}"
            time.sleep(0.1)
        yield port
    finally:
        stop_process(process)


direct_port: dict[int, str] = {}  # proxy port -> the server's own address


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[int]:
    server = start_server(
        tmp_path,
        {
            "REDIS_URL": "",  # one process: its own throttle counters, fresh for this test
            "FORWARDED_ALLOW_IPS": "127.0.0.1",  # Caddy's address as uvicorn sees it here
            "THROTTLE_LOGIN": f"{LOGINS_PER_MINUTE}/min",
            "METRICS_ENABLED": "true",
        },
    )
    try:
        with caddy_in_front_of(server, tmp_path) as port:
            direct_port[port] = server.url
            yield port
    finally:
        stop_server(server)


def request(
    port: int, method: str, path: str, *, client: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """One request to the proxy from the loopback address ``client`` (127.0.0.x)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=20, source_address=(client, 0)
    )
    try:
        connection.request(
            method,
            path,
            body=b"{}" if method == "POST" else None,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def test_requests_and_live_boards_pass_through_the_proxy(proxy: int) -> None:
    challenge = make_challenge()
    status, body = request(proxy, "GET", "/api/v1/challenges/today/", client="127.0.0.2")
    assert status == 200 and body["challenges"][0]["id"] == challenge.pk
    with connect(
        f"ws://127.0.0.1:{proxy}/ws/challenges/{challenge.pk}/",
        origin=cast(Any, f"http://127.0.0.1:{proxy}"),
        open_timeout=10,
    ) as watcher:
        snapshot = json.loads(str(watcher.recv(timeout=10)))
        assert snapshot["type"] == "snapshot"
        watcher.send(json.dumps({"type": "ping"}))
        assert json.loads(str(watcher.recv(timeout=10)))["type"] == "pong"


def test_the_proxy_does_not_serve_the_operators_metrics(proxy: int) -> None:
    status, _ = request(proxy, "GET", "/metrics/", client="127.0.0.2")
    assert status == 404
    with urllib.request.urlopen(f"{direct_port[proxy]}/metrics/", timeout=10) as direct:
        assert direct.status == 200 and b"astrocyte_" in direct.read()


def test_rate_limits_count_the_real_address_not_a_forged_forwarded_for(proxy: int) -> None:
    """Log-in attempts are limited per client address (here 2 a minute): a client cannot
    get more by sending its own X-Forwarded-For, and clients behind the proxy are not all
    counted as the proxy's one address."""

    def login(client: str, forged: str) -> int:
        headers = {"X-Forwarded-For": forged, "Forwarded": f"for={forged}"}
        return request(proxy, "POST", "/api/v1/auth/login/", client=client, headers=headers)[0]

    # Refused for want of a CSRF token (403), but counted first, as any attempt.
    seen = [login("127.0.0.2", f"203.0.113.{n}") for n in range(LOGINS_PER_MINUTE + 1)]
    assert seen == [403] * LOGINS_PER_MINUTE + [429]
    assert login("127.0.0.3", "203.0.113.1") == 403  # another player: their own count
