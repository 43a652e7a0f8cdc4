"""1,000 WebSocket watchers of one challenge (issue 4, "Figures"): time to the board push.

Run from the repository root, with PostgreSQL and Redis as in CI::

    .venv/bin/python -m bench.ws_fanout_bench \
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench \
        --redis-url redis://127.0.0.1:6379/0

It starts the production server (``python3.11 scripts/dev.py run --prod``, uvicorn with
``--workers`` processes) on ``--port`` with that DATABASE_URL and REDIS_URL, opens
``--watchers`` WebSockets to ``/ws/challenges/<id>/`` of one challenge (the ``websockets``
client, which uvicorn[standard] already installs), waits for every snapshot, then
``--rounds`` times finishes an attempt the way the attempts service does (write, commit,
``attempt_finished`` on commit) from this process, and takes for every watcher the time
from the commit to the arrival of the ``board`` message that shows that attempt. The time
includes the board window (live.BOARD_WINDOW_SECONDS, 250 ms): a finish waits for its
window's flush on purpose. The figure is p50/p99/max over all watchers and rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import resource
import secrets
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from bench import prod_server
from bench.api_load_bench import setup_django
from bench.leaderboard_bench import ensure_database

ROOT = Path(__file__).resolve().parent.parent
TARGET_P99_S = 1.0


def start_server(args: argparse.Namespace) -> subprocess.Popen[bytes]:
    return prod_server.start_server(
        port=args.port,
        workers=args.workers,
        database_url=args.database_url,
        redis_url=args.redis_url,
    )


def make_challenge(rounds: int) -> tuple[int, list[int]]:
    """A fresh challenge with ``rounds`` open attempts, by new players."""
    from django.contrib.auth import get_user_model

    from games.models import Attempt, DailyChallenge, Deal, commitment_for

    tag = secrets.token_hex(4)
    seed = secrets.randbits(63)
    deal = Deal.objects.create(
        variant="spider1",
        seed=seed,
        nonce=tag,
        commitment=commitment_for("spider1", seed, tag),
        rules_version=1,
        status=Deal.Status.VERIFIED,
    )
    # A past day (a challenge before its day is "not found" for watchers), one per run.
    day = dt.date(1970, 1, 1) + dt.timedelta(days=secrets.randbelow(18_000))
    challenge = DailyChallenge.objects.create(date=day, variant="spider1", deal=deal)
    attempts = []
    for n in range(rounds):
        player = get_user_model()(username=f"fanout-{tag}-{n}")
        player.set_unusable_password()
        player.save()
        attempt = Attempt.objects.create(
            player=player,
            deal=deal,
            challenge=challenge,
            kind=Attempt.Kind.RANKED,
            started_at=dt.datetime.now(dt.UTC),
        )
        attempts.append(attempt.pk)
    return challenge.pk, attempts


def finish(attempt_id: int, score: int) -> float:
    """Finish like the attempts service; the perf_counter time of the commit."""
    from django.db import transaction

    from games import signals
    from games.models import Attempt
    from games.services.board_counts import board_counts_follow, board_key

    with transaction.atomic():
        attempt = Attempt.objects.select_for_update().get(pk=attempt_id)
        counted_as = board_key(attempt)
        attempt.ended_at = dt.datetime.now(dt.UTC)
        attempt.elapsed_seconds = 60.0
        attempt.score = score
        attempt.action_count = 1  # (an attempt ended with no action is on no board)
        attempt.end_reason = Attempt.EndReason.RESIGNED
        attempt.save()
        board_counts_follow(counted_as, attempt)
        transaction.on_commit(
            lambda: signals.attempt_finished.send(
                sender=Attempt, attempt_id=attempt.pk, challenge_id=attempt.challenge_id
            )
        )
    return time.perf_counter()


class Watcher:
    def __init__(self) -> None:
        self.arrivals: dict[int, float] = {}  # attempt id -> first board showing it
        self.ready = asyncio.Event()
        self.error: str | None = None


async def watch(
    url: str,
    origin: str,
    watcher: Watcher,
    stop: asyncio.Event,
    headers: list[tuple[str, str]] | None = None,
) -> None:
    """One watcher until ``stop``: the first ``board`` that shows each attempt, timed."""
    import websockets
    from websockets.typing import Origin

    try:
        async with websockets.connect(
            url,
            origin=Origin(origin),
            open_timeout=60,
            max_size=None,
            additional_headers=headers,
        ) as socket:
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(socket.recv(), timeout=0.5)
                except TimeoutError:
                    continue
                now = time.perf_counter()
                message = json.loads(raw)
                if message["type"] == "snapshot":
                    watcher.ready.set()
                elif message["type"] == "board":
                    for row in message["top"]:
                        watcher.arrivals.setdefault(row["attempt_id"], now)
    except Exception as error:
        watcher.error = repr(error)
        watcher.ready.set()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    challenge_id, attempt_ids = await sync_to_async(make_challenge)(args.rounds)
    url = f"ws://127.0.0.1:{args.port}/ws/challenges/{challenge_id}/"
    origin = f"http://127.0.0.1:{args.port}"
    watchers = [Watcher() for _ in range(args.watchers)]
    stop = asyncio.Event()
    began = time.perf_counter()
    tasks = []
    for n, watcher in enumerate(watchers):
        tasks.append(asyncio.create_task(watch(url, origin, watcher, stop)))
        if n % 100 == 99:
            await asyncio.sleep(0.05)  # do not stampede the listen backlog
    await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), timeout=180)
    connected = sum(1 for w in watchers if w.error is None)
    took = time.perf_counter() - began
    print(f"{connected} of {args.watchers} watchers connected in {took:.1f} s")
    await asyncio.sleep(1.0)

    latencies: list[float] = []
    missing = 0
    for n, attempt_id in enumerate(attempt_ids):
        committed = await sync_to_async(finish)(attempt_id, 100 + n)
        await asyncio.sleep(args.wait)
        for watcher in watchers:
            if watcher.error is not None:
                continue
            arrived = watcher.arrivals.get(attempt_id)
            if arrived is None:
                missing += 1
            else:
                latencies.append(arrived - committed)
        print(f"round {n + 1}: finished attempt {attempt_id}")
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    errors = [w.error for w in watchers if w.error]
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, round(q * (len(latencies) - 1)))]

    return {
        "watchers": args.watchers,
        "connected": connected,
        "rounds": args.rounds,
        "deliveries": len(latencies),
        "missing": missing,
        "errors": errors[:3],
        "p50_ms": round(pct(0.5) * 1000, 1) if latencies else None,
        "p99_ms": round(pct(0.99) * 1000, 1) if latencies else None,
        "max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
        "min_ms": round(latencies[0] * 1000, 1) if latencies else None,
        "mean_ms": round(statistics.mean(latencies) * 1000, 1) if latencies else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_bench"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--wait", type=float, default=3.0, help="seconds allowed per round")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--workers", type=int, default=prod_server.DEFAULT_WORKERS)
    parser.add_argument("--no-server", action="store_true", help="use a server already on --port")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, args.watchers * 2 + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if not args.port:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            args.port = probe.getsockname()[1]
    ensure_database(args.database_url, refill=False)  # made on a fresh machine, kept otherwise
    setup_django(args)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    server = None if args.no_server else start_server(args)
    try:
        result = asyncio.run(run(args))
    finally:
        if server is not None:
            prod_server.stop_server(server)
    print(json.dumps(result, indent=2))
    if result["p99_ms"] is not None:
        verdict = "meets" if result["p99_ms"] <= TARGET_P99_S * 1000 else "misses"
        print(f"p99 {result['p99_ms']} ms {verdict} the target of {TARGET_P99_S * 1000:.0f} ms")


if __name__ == "__main__":
    main()
