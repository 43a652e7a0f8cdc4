"""What the compose stack's reverse proxy (Caddy, deploy/Caddyfile) costs a request.

    .venv/bin/python -m bench.proxy_bench \\
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench \\
        --redis-url redis://127.0.0.1:6379/7 [--requests 500] [--clients 16]

Migrates the database, starts the server as compose's ``web`` runs it (uvicorn, 2 worker
processes, DEBUG off, forwarded headers believed from 127.0.0.1 as from the proxy's network
in compose) and Debian's caddy
serving deploy/Caddyfile in front of it, both on loopback. Then ``GET
/api/v1/challenges/today/``: ``--requests`` one after the other on a kept-alive connection,
direct and through the proxy in turns (so that the machine's noise falls on both alike),
reporting median and p99; then ``--clients`` clients at once, ``--requests`` each, direct
and then proxied, reporting requests per second. Needs ``caddy`` on PATH.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.run_support import caddy_environment

ROOT = Path(__file__).resolve().parent.parent

PATH = "/api/v1/challenges/today/"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_web(port: int, database_url: str, redis_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "LOG_LEVEL": "WARNING",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",
    }
    python = sys.executable
    subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    subprocess.run(
        [python, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    command = [
        python, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
        "--port", str(port), "--workers", "2", "--lifespan", "off", "--proxy-headers",
        "--no-access-log", "--log-level", "warning",
    ]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 1):
                return server
        except OSError:
            time.sleep(0.2)
    stop(server)
    raise SystemExit("the server did not listen within 60 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # the server's own session, by its id
        process.wait(timeout=30)


def start_caddy(port: int, upstream_port: int, scratch: Path) -> subprocess.Popen[bytes]:
    env = caddy_environment(port, upstream_port, scratch)
    caddy = subprocess.Popen(
        ["caddy", "run", "--adapter", "caddyfile", "--config", str(ROOT / "deploy/Caddyfile")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 1):
                return caddy
        except OSError:
            time.sleep(0.1)
    caddy.terminate()
    raise SystemExit("caddy did not listen within 20 s")


def timed_get(connection: http.client.HTTPConnection) -> float:
    started = time.perf_counter()
    connection.request("GET", PATH)
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
    return (time.perf_counter() - started) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def sequential(ports: dict[str, int], requests: int) -> dict[str, list[float]]:
    connections = {
        name: http.client.HTTPConnection("127.0.0.1", port) for name, port in ports.items()
    }
    took: dict[str, list[float]] = {name: [] for name in ports}
    for connection in connections.values():
        for _ in range(20):  # warm-up
            timed_get(connection)
    for _ in range(requests):
        for name, connection in connections.items():
            took[name].append(timed_get(connection))
    for connection in connections.values():
        connection.close()
    return took


def concurrent(port: int, clients: int, requests: int) -> float:
    """Requests per second with ``clients`` kept-alive clients sending ``requests`` each."""

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(requests):
            timed_get(connection)
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return clients * requests / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    server_port, proxy_port = free_port(), free_port()
    server = start_web(server_port, args.database_url, args.redis_url)
    try:
        with tempfile.TemporaryDirectory(prefix="astrocyte-proxy-") as scratch:
            caddy = start_caddy(proxy_port, server_port, Path(scratch))
            try:
                ports = {"direct": server_port, "through the proxy": proxy_port}
                took = sequential(ports, args.requests)
                for name, values in took.items():
                    median, p99 = statistics.median(values), percentile(values, 0.99)
                    print(
                        f"{name}: {len(values)} sequential GET {PATH}: "
                        f"median {median:.2f} ms, p99 {p99:.2f} ms",
                        flush=True,
                    )
                for name, port in ports.items():
                    rate = concurrent(port, args.clients, args.requests // 5)
                    print(
                        f"{name}: {args.clients} clients at once: {rate:.0f} requests/s", flush=True
                    )
            finally:
                caddy.terminate()
                caddy.wait(timeout=10)
    finally:
        stop(server)


if __name__ == "__main__":
    main()
