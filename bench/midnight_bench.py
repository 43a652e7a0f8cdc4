"""How the README's embedded run (``python3.11 scripts/dev.py run``: SQLite file, no
REDIS_URL, the embedded beat) crosses 00:00 UTC: how long after midnight the next daily is
playable, and when a watcher gets the final board of an attempt left open.

    .venv/bin/python -m bench.midnight_bench [--runs 3] [--scenario running|late|both]

Each run makes a fresh SQLite file and starts the server with ``scripts/dev.py run
--no-prepare`` on a clock shifted to just before midnight of 2031-03-14 (time-machine, as
the tests do: ``tests/clock_settings.py``); the bench itself reads the server's clock as
real time plus the same shift.

- ``running``: the server has been running for a while: start-up prepared two days
  (``manage.py dailies_prepare --days 2``) and the server is up at about 23:59:40.
- ``late``: the server is started at about 23:59:50 with today prepared only (as
  ``scripts/dev.py run`` prepares it earlier in the day; this close to midnight it proves
  tomorrow too): the next day's daily is left to the embedded beat, which must draw and
  prove a candidate in the background before 00:00.

Settings are the embedded defaults (Astrocyte dailies 7 days ahead, practice pools of 50 for
four variants), so the background verifier is busy with the other days and the practice
pools across midnight, as in a real first night.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets

from bench.prod_server import stop_server

ROOT = Path(__file__).resolve().parent.parent
DAY = dt.date(2031, 3, 14)
MIDNIGHT = dt.datetime(2031, 3, 15, tzinfo=dt.UTC)
NEXT_DAY = "2031-03-15"
PASSWORD = "bench-midnight-password-1"
SERVER_LOG = Path(tempfile.gettempdir()) / "astrocyte-midnight-bench-server.log"


@dataclass
class Run:
    scenario: str
    up_at: float  # seconds before midnight (negative) at which /health/ first answered
    playable_after: float | None  # seconds after 00:00 until today/ listed the new daily
    board_after: float | None  # seconds after 00:00 until the watcher got the final board
    empty_answers: int  # today/ answers after 00:00 that had no daily yet
    asked_after: float | None  # when the first request that listed it was sent
    request_ms: float  # median time of today/ requests around midnight
    slowest: tuple[float, float]  # (sent at, ms) of the slowest request sent within 1 s of 00:00


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Clock:
    def __init__(self, shift: float) -> None:
        self.shift = shift

    def now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(time.time() + self.shift, dt.UTC)

    def to_midnight(self) -> float:
        return (MIDNIGHT - self.now()).total_seconds()


def manage(env: dict[str, str], *args: str) -> None:
    python = ROOT / ".venv" / "bin" / "python"
    subprocess.run([str(python), "manage.py", *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip


def server_env(database: Path, shift: float) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "tests.clock_settings",
        "TEST_CLOCK_SHIFT": str(shift),
        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"),
        "THROTTLE_LOGIN": "1000/min",
    }


def http(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
    request = urllib.request.Request(url, method="POST" if body is not None else "GET")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data=data, timeout=10) as answer:
        return json.loads(answer.read())


def prepare(scenario: str, database: Path) -> None:
    """Start-up's preparation, on a clock in the evening of DAY, and the bench's player."""
    env = server_env(database, (MIDNIGHT - dt.timedelta(hours=1)).timestamp() - time.time())
    manage(env, "migrate", "--noinput", "-v", "0")
    days = "2" if scenario == "running" else "1"
    manage(env, "dailies_prepare", "--days", days, "--practice", "0", "--seconds", "30")
    script = (
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user('bench', password='{PASSWORD}')"
    )
    manage(env, "shell", "-c", script)


def start(
    database: Path, port: int, up_at: float, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], Clock]:
    # The server takes a few seconds to come up: aim its clock so that it answers near up_at.
    clock = Clock((MIDNIGHT + dt.timedelta(seconds=up_at - 4)).timestamp() - time.time())
    command = [sys.executable, "scripts/dev.py", "run", "--port", str(port)]
    with SERVER_LOG.open("ab") as log:
        server = subprocess.Popen(
            command, cwd=ROOT, env={**server_env(database, clock.shift), **(extra_env or {})},
            start_new_session=True,
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2):
                return server, clock
        except OSError:
            if server.poll() is not None:
                sys.exit(f"the server exited with {server.returncode}")
            time.sleep(0.1)
    stop_server(server)
    sys.exit("the server did not answer within 120 s")


async def cross_midnight(base: str, clock: Clock, scenario: str, up_at: float) -> Run:
    api = f"{base}/api/v1"
    credentials = {"username": "bench", "password": PASSWORD}
    token = (await asyncio.to_thread(http, f"{api}/auth/token/", credentials))["token"]
    today = await asyncio.to_thread(http, f"{api}/challenges/today/", None, token)
    challenge_id = today["challenges"][0]["id"]
    attempt = await asyncio.to_thread(http, f"{api}/challenges/{challenge_id}/start/", {}, token)
    state = await asyncio.to_thread(http, f"{api}/attempts/{attempt['id']}/", None, token)
    move = {"offset": 0, "actions": state["legal_actions"][:1]}
    await asyncio.to_thread(http, f"{api}/attempts/{attempt['id']}/actions/", move, token)

    ws_url = base.replace("http", "ws") + f"/ws/challenges/{challenge_id}/"
    async with websockets.connect(ws_url, origin=base) as watcher:  # type: ignore[arg-type]
        await watcher.recv()  # the snapshot
        board_task = asyncio.create_task(first_board(watcher, clock))
        playable, asked, empty, took = await poll_today(api, token, clock)
        board_after = await asyncio.wait_for(board_task, 60)
    near = [(sent, ms) for sent, ms in took if abs(sent) <= 1.0] or [(0.0, 0.0)]
    slowest = max(near, key=lambda request: request[1])
    median = statistics.median(ms for _, ms in took)
    return Run(scenario, up_at, playable, board_after, empty, asked, median, slowest)


async def first_board(watcher: Any, clock: Clock) -> float:
    while True:
        message = json.loads(await watcher.recv())
        if message["type"] == "board":
            return -clock.to_midnight()


async def poll_today(
    api: str, token: str, clock: Clock
) -> tuple[float | None, float | None, int, list[tuple[float, float]]]:
    """Ask today/ from 23:59:59.5 on, one request after the other, until it lists the new
    day's daily: (answered at, asked at, answers without a daily, [(sent at, ms)])."""
    await asyncio.sleep(max(0.0, clock.to_midnight() - 0.5))
    empty = 0
    took = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        asked = -clock.to_midnight()
        answer = await asyncio.to_thread(http, f"{api}/challenges/today/", None, token)
        answered = -clock.to_midnight()
        took.append((asked, (answered - asked) * 1000))
        if answer["date"] == NEXT_DAY:
            if answer["challenges"]:
                return answered, asked, empty, took
            empty += 1
        await asyncio.sleep(0.02)
    return None, None, empty, took


def one_run(scenario: str) -> Run:
    with tempfile.TemporaryDirectory(prefix="astrocyte-midnight-") as folder:
        database = Path(folder) / "db.sqlite3"
        prepare(scenario, database)
        port = free_port()
        up_at = -20.0 if scenario == "running" else -10.0
        server, clock = start(database, port, up_at)
        try:
            up = -clock.to_midnight()
            run = asyncio.run(cross_midnight(f"http://127.0.0.1:{port}", clock, scenario, up))
        finally:
            stop_server(server)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenario", choices=["running", "late", "both"], default="both")
    args = parser.parse_args()
    scenarios = ["running", "late"] if args.scenario == "both" else [args.scenario]
    runs = []
    for scenario in scenarios:
        for _ in range(args.runs):
            run = one_run(scenario)
            runs.append(run)
            print(
                f"{run.scenario:8} up at {run.up_at:+6.1f} s  new daily playable at "
                f"{fmt(run.playable_after)} (asked at {fmt(run.asked_after)})  final board at "
                f"{fmt(run.board_after)}  answers without a daily after 00:00: "
                f"{run.empty_answers}  median request {run.request_ms:.0f} ms, slowest "
                f"{run.slowest[1]:.0f} ms (sent at {run.slowest[0]:+.2f} s)",
                flush=True,
            )
    for scenario in scenarios:
        playable = [r.playable_after for r in runs if r.scenario == scenario and r.playable_after]
        boards = [r.board_after for r in runs if r.scenario == scenario and r.board_after]
        if playable and boards:
            print(
                f"{scenario}: playable median {statistics.median(playable):.2f} s, "
                f"max {max(playable):.2f} s; final board median "
                f"{statistics.median(boards):.2f} s, max {max(boards):.2f} s after 00:00"
            )


def fmt(seconds: float | None) -> str:
    return "never" if seconds is None else f"00:00 + {seconds:5.2f} s"


if __name__ == "__main__":
    main()
