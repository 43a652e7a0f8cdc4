"""The README's run on a fresh database: how soon the first page answers and today's daily
is playable, and what a request costs while the background verifier works.

    python3.11 -m bench.embedded_startup_bench [--runs 3] [--requests 200]

Each run starts ``python3.11 scripts/dev.py run`` exactly as the README says (the venv and
the compiled build already made: the first ``run`` or ``test`` makes them), on an empty
SQLite file of its own and a free port, with the embedded defaults (no REDIS_URL). It
times, from the command's start:

- **first page**: ``GET /`` answers 200;
- **daily listed**: ``GET /api/v1/challenges/today/`` lists today's daily;
- **playable**: a new player (sign-up, token) has started it (``POST …/start/`` 201) and
  played the first action of its legal list (``POST attempts/{id}/actions/`` 200).

Then, with the verifier still filling the next day and the practice pools, it sends
``--requests`` ``GET challenges/today/`` one after the other and reports their median and
p99 (the solver runs in a niced child process: SOLVER_NICENESS).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bench.prod_server import stop_server

ROOT = Path(__file__).resolve().parent.parent
DEADLINE_SECONDS = 180.0


def free_port() -> int:
    # (bench/midnight_bench.py has the same, but imports websockets: this bench runs on
    # the system's python3.11 alone, before any venv)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


COOKIES = http.cookiejar.CookieJar()  # the sign-up's session and CSRF cookies
OPENER = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(COOKIES))


def csrf_token() -> str:
    return next((c.value for c in COOKIES if c.name == "csrftoken"), "") or ""


def call(
    url: str, method: str = "GET", body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    elif method != "GET":
        request.add_header("X-CSRFToken", csrf_token())
        request.add_header("Referer", url)
    try:
        with OPENER.open(request, timeout=10) as answer:
            raw = answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


def wait_for(condition: Any, began: float) -> float:
    while time.monotonic() - began < DEADLINE_SECONDS:
        try:
            if condition():
                return time.monotonic() - began
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"not within {DEADLINE_SECONDS:.0f} s")


def one_run(requests: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="astrocyte-startup-") as folder:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'db.sqlite3'}"
        log = open(Path(folder) / "server.log", "wb")  # noqa: SIM115 - closed below
        began = time.monotonic()
        server = subprocess.Popen(
            [sys.executable, "scripts/dev.py", "run", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            first_page = wait_for(lambda: call(f"{base}/")[0] == 200, began)
            listed = wait_for(
                lambda: call(f"{base}/api/v1/challenges/today/")[1]["challenges"], began
            )
            name = f"bench{int(time.time() * 1000) % 10**9}"
            password = "a long enough passphrase 42"
            call(f"{base}/api/v1/auth/me/")  # the CSRF cookie, as a browser gets it
            status, signed = call(
                f"{base}/api/v1/auth/signup/", "POST", {"username": name, "password": password}
            )
            assert status == 201, (status, signed)
            _, tokens = call(
                f"{base}/api/v1/auth/token/", "POST", {"username": name, "password": password}
            )
            token = tokens["token"]
            _, today = call(f"{base}/api/v1/challenges/today/", token=token)
            challenge = today["challenges"][0]["id"]
            status, attempt = call(
                f"{base}/api/v1/challenges/{challenge}/start/", "POST", token=token
            )
            assert status == 201, (status, attempt)
            action = attempt["legal_actions"][0]
            status, played = call(
                f"{base}/api/v1/attempts/{attempt['id']}/actions/",
                "POST",
                {"offset": 0, "actions": [action]},
                token=token,
            )
            assert status == 200, (status, played)
            playable = time.monotonic() - began
            took = []
            for _ in range(requests):
                started = time.perf_counter()
                call(f"{base}/api/v1/challenges/today/")
                took.append((time.perf_counter() - started) * 1000)
        except BaseException:
            log.flush()
            sys.stderr.write((Path(folder) / "server.log").read_text(errors="replace")[-4000:])
            raise
        finally:
            stop_server(server)
            log.close()
    ordered = sorted(took)
    return {
        "first_page": first_page,
        "listed": listed,
        "playable": playable,
        "median_ms": statistics.median(took),
        "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    results = []
    for n in range(args.runs):
        result = one_run(args.requests)
        results.append(result)
        print(
            f"run {n + 1}: first page {result['first_page']:.1f} s, daily listed "
            f"{result['listed']:.1f} s, playable {result['playable']:.1f} s; "
            f"{args.requests} requests while verifying: median {result['median_ms']:.1f} ms, "
            f"p99 {result['p99_ms']:.1f} ms",
            flush=True,
        )
    for key, label in (("first_page", "first page"), ("playable", "playable")):
        values = [r[key] for r in results]
        print(f"{label}: median {statistics.median(values):.1f} s, worst {max(values):.1f} s")


if __name__ == "__main__":
    main()
