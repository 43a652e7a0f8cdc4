"""Live watchers of one challenge (issue 15, part 2): time from a finish's commit to the new board.

Run from the repository root, with PostgreSQL and Redis as in CI::

    .venv/bin/python -m bench.ws_fanout_bench --watchers 10000 --players 100

It (re)creates a database of its own (``--database-url``), empties a Redis database of its
own (``--redis-url``), makes today's verified spider1 daily (as ``bench.api_load_bench``
does), ``--rounds`` open ranked attempts on it to finish, and ``--players`` players with API
tokens. Then it starts the production server (``scripts/dev.py run --prod``: uvicorn with
its default worker processes, or ``--workers``) and:

1. opens ``--watchers`` WebSockets to ``/ws/challenges/<id>/`` from ``--client-processes``
   client processes (``--client``: by default bench/ws_light_client.py, which takes the
   least CPU from the server on the same cores; file limits raised), each waiting for
   every snapshot;
2. reads the server's memory (PSS of every process of its process group, from
   ``/proc/<pid>/smaps_rollup``) before the watchers connect and after, idle: the memory
   per idle watcher;
3. starts the players: each plays its ranked attempt on the same challenge through the
   API (the stored solution, one action a post, ``--player-rate`` posts/s in all), so the
   watchers also get their progress pushes;
4. ``--rounds`` times, finishes an attempt from this process the way the attempts service
   does (write, commit, ``attempt_finished`` on commit: this process broadcasts, as a web
   worker would) and takes, for every watcher, the time from the commit to the arrival of
   the first ``board`` message showing that attempt.

The time includes the board window (``live.BOARD_WINDOW_SECONDS``, 250 ms): a finish waits
for its window's flush on purpose. Clocks: ``time.monotonic`` (CLOCK_MONOTONIC, one clock
for every process of the machine). The clients run on the same cores as the server, and
their CPU time is reported with the result.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import multiprocessing
import os
import resource
import secrets
import statistics
import subprocess
import sys
import time
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

from bench import api_load_bench as load
from bench import prod_server, ws_light_client

ROOT = Path(__file__).resolve().parent.parent
TARGET_P99_S = 1.0
WATCHERS_PER_CLIENT = 2500


# --- the database ---------------------------------------------------------------------


def make_round_attempts(challenge_id: int, rounds: int, tag: str) -> list[int]:
    """``rounds`` open ranked attempts on the challenge, by new players."""
    from django.contrib.auth import get_user_model

    from games.models import Attempt, DailyChallenge

    challenge = DailyChallenge.objects.get(pk=challenge_id)
    attempts = []
    for n in range(rounds):
        player = get_user_model()(username=f"fanout-{tag}-{n}")
        player.set_unusable_password()
        player.save()
        attempt = Attempt.objects.create(
            player=player,
            deal=challenge.deal,
            challenge=challenge,
            kind=Attempt.Kind.RANKED,
            started_at=dt.datetime.now(dt.UTC),
        )
        attempts.append(attempt.pk)
    return attempts


def finish(attempt_id: int, score: int) -> float:
    """Finish like the attempts service; the ``time.monotonic`` of the commit."""
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
    return time.monotonic()


# --- the server's memory ----------------------------------------------------------------


def server_pss_bytes(server_pid: int) -> int:
    """Proportional set size of every process in the server's process group (shared pages
    split between the processes that share them, so forked workers are not counted twice)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != server_pid:
                continue
            for line in (entry / "smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue
    return total


# --- the watchers: client processes ----------------------------------------------------


def board_markers(attempt_ids: list[int]) -> dict[int, tuple[str, str]]:
    return {aid: (f'"attempt_id": {aid},', f'"attempt_id": {aid}}}') for aid in attempt_ids}


def note_board(
    text: str,
    arrived: float,
    markers: dict[int, tuple[str, str]],
    seen: set[int],
    arrivals: dict[int, list[float]],
) -> None:
    """A frame's arrival, for each attempt whose first board showing it this frame is."""
    if not text.startswith('{"type": "board"'):
        return
    for aid, (inner, last) in markers.items():
        if aid not in seen and (inner in text or last in text):
            seen.add(aid)
            arrivals[aid].append(arrived)


async def watch(
    url: str,
    origin: str,
    markers: dict[int, tuple[str, str]],
    arrivals: dict[int, list[float]],
    ready: asyncio.Queue[str | None],
    sockets: list[Any],
    compression: str | None,
) -> None:
    import websockets
    from websockets.typing import Origin

    seen: set[int] = set()
    reported = False
    try:
        async with websockets.connect(
            url,
            origin=Origin(origin),
            open_timeout=120,
            max_size=None,
            compression=compression,
            ping_interval=None,
        ) as ws:
            sockets.append(ws)
            first = json.loads(await ws.recv())
            reported = True
            await ready.put(None if first.get("type") == "snapshot" else f"first: {first}")
            async for raw in ws:
                if isinstance(raw, str):
                    note_board(raw, time.monotonic(), markers, seen, arrivals)
    except Exception as error:
        if not reported:
            await ready.put(repr(error))


def watch_light(
    url: str,
    origin: str,
    markers: dict[int, tuple[str, str]],
    arrivals: dict[int, list[float]],
    ready: asyncio.Queue[str | None],
    sockets: list[Any],
) -> asyncio.Task[None]:
    """As ``watch``, with bench.ws_light_client (the arrival: when the frame's bytes were read)."""
    seen: set[int] = set()
    reported = False

    def on_text(payload: bytes, read_at: float) -> None:
        nonlocal reported
        if not reported:
            reported = True
            snapshot = payload.startswith(b'{"type": "snapshot"')
            ready.put_nowait(None if snapshot else f"first: {payload[:80]!r}")
        elif payload.startswith(b'{"type": "board"'):
            note_board(payload.decode(), read_at, markers, seen, arrivals)

    def on_end(reason: str) -> None:
        nonlocal reported
        if not reported:
            reported = True
            ready.put_nowait(reason)

    async def connect() -> None:
        try:
            sockets.append(await ws_light_client.open_watcher(url, origin, on_text, on_end))
        except OSError as error:
            on_end(repr(error))

    return asyncio.create_task(connect())


async def client(
    url: str,
    origin: str,
    count: int,
    attempt_ids: list[int],
    connects_per_s: float,
    kind: str,
    report: Any,
    stop: EventType,
) -> None:
    markers = board_markers(attempt_ids)
    arrivals: dict[int, list[float]] = {aid: [] for aid in attempt_ids}
    ready: asyncio.Queue[str | None] = asyncio.Queue()
    sockets: list[Any] = []
    tasks = []
    for _ in range(count):
        if kind == "light":
            tasks.append(watch_light(url, origin, markers, arrivals, ready, sockets))
        else:
            compression = "deflate" if kind == "websockets-deflate" else None
            watcher = watch(url, origin, markers, arrivals, ready, sockets, compression)
            tasks.append(asyncio.create_task(watcher))
        await asyncio.sleep(1.0 / connects_per_s)
    errors = []
    for _ in range(count):
        outcome = await ready.get()
        if outcome is not None:
            errors.append(outcome)
    report.put(("ready", count - len(errors), errors[:3]))
    await asyncio.get_running_loop().run_in_executor(None, stop.wait)
    for ws in sockets:
        with contextlib.suppress(Exception):
            closed = ws.close()
            if asyncio.iscoroutine(closed):
                await closed
    await asyncio.gather(*tasks, return_exceptions=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report.put(("done", arrivals, usage.ru_utime + usage.ru_stime))


def client_main(*args: Any) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    kind = args[5]
    if kind == "light":  # the lean instrument: uvloop too, as the server has
        import uvloop

        uvloop.run(client(*args))
    else:
        asyncio.run(client(*args))


# --- the run ---------------------------------------------------------------------------


async def drive_players_and_finishes(
    args: argparse.Namespace,
    challenge_id: int,
    solution: list[str],
    tokens: list[str],
    spares: list[str],
    attempt_ids: list[int],
) -> tuple[dict[int, float], dict[str, Any]]:
    from asgiref.sync import sync_to_async

    shared = load.Shared(
        port=args.port,
        challenge_id=challenge_id,
        solution=solution,
        spare_tokens=spares,
        interval=(len(tokens) / args.player_rate) if tokens and args.player_rate else 0.0,
    )
    shared.stop_at = time.perf_counter() + 3600
    tally = load.Tally()
    go = asyncio.Event()
    gate = asyncio.Semaphore(50)
    players = [asyncio.create_task(load.player(t, shared, tally, go, gate)) for t in tokens]
    while tally.ready < len(tokens):
        await asyncio.sleep(0.05)
    go.set()
    tally.recording = True
    await asyncio.sleep(2.0)  # the players are under way
    committed: dict[int, float] = {}
    for n, attempt_id in enumerate(attempt_ids):
        committed[attempt_id] = await sync_to_async(finish)(attempt_id, 100 + n)
        await asyncio.sleep(args.wait)
        print(f"round {n + 1}: finished attempt {attempt_id}", flush=True)
    shared.stop_at = 0.0
    await asyncio.gather(*players)
    return committed, {
        "players": len(tokens),
        "accepted_posts": tally.accepted,
        "statuses": dict(sorted(tally.statuses.items())),
        "post_latency_ms": {
            "p50": load.pct(tally.latencies, 0.5),
            "p99": load.pct(tally.latencies, 0.99),
        },
        "errors": tally.errors[:3],
    }


def pct_ms(values: list[float], q: float) -> float | None:
    return load.pct(values, q)


def run(args: argparse.Namespace, server_pid: int | None) -> dict[str, Any]:
    from django.db import connections

    tag = dt.datetime.now(dt.UTC).strftime("%H%M%S") + secrets.token_hex(2)
    challenge_id, solution = load.make_daily()
    attempt_ids = make_round_attempts(challenge_id, args.rounds, tag)
    tokens = load.make_players(args.players, tag) if args.players else []
    spares = load.make_players(args.players * 4, tag + "s") if args.players else []
    connections.close_all()
    url = f"ws://127.0.0.1:{args.port}/ws/challenges/{challenge_id}/"
    origin = f"http://127.0.0.1:{args.port}"

    idle_before = server_pss_bytes(server_pid) if server_pid else 0
    context = multiprocessing.get_context("spawn")
    report = context.Queue()
    stop = context.Event()
    shares = [args.watchers // args.client_processes] * args.client_processes
    for n in range(args.watchers % args.client_processes):
        shares[n] += 1
    per_client_rate = args.connects_per_s / args.client_processes
    clients = [
        context.Process(
            target=client_main,
            args=(url, origin, share, attempt_ids, per_client_rate, args.client, report, stop),
        )
        for share in shares
    ]
    began = time.monotonic()
    for process in clients:
        process.start()
    connected, errors = 0, []
    for _ in clients:
        _, ok, some_errors = report.get(timeout=900)
        connected += ok
        errors += some_errors
    print(f"{connected} of {args.watchers} watchers connected in {time.monotonic() - began:.1f} s")
    time.sleep(3.0)
    idle_after = server_pss_bytes(server_pid) if server_pid else 0

    cpu_before, clock_before = load.cpu_snapshot(server_pid), time.monotonic()
    committed, players = asyncio.run(
        drive_players_and_finishes(args, challenge_id, solution, tokens, spares, attempt_ids)
    )
    cpu = load.cpu_cores(cpu_before, load.cpu_snapshot(server_pid), time.monotonic() - clock_before)
    stop.set()
    arrivals: dict[int, list[float]] = {aid: [] for aid in attempt_ids}
    client_cpu = 0.0
    for _ in clients:
        _, some, used = report.get(timeout=300)
        client_cpu += used
        for aid, times in some.items():
            arrivals[aid] += times
    for process in clients:
        process.join(timeout=60)

    latencies = [t - committed[aid] for aid in attempt_ids for t in arrivals[aid]]
    missing = connected * len(attempt_ids) - len(latencies)
    per_watcher = (idle_after - idle_before) / connected if connected else None
    return {
        "watchers": args.watchers,
        "connected": connected,
        "client_processes": args.client_processes,
        "server_workers": args.workers,
        "client": args.client,
        "rounds": args.rounds,
        "deliveries": len(latencies),
        "missing": missing,
        "errors": errors[:3],
        "min_ms": pct_ms(latencies, 0.0),
        "p50_ms": pct_ms(latencies, 0.5),
        "p99_ms": pct_ms(latencies, 0.99),
        "max_ms": pct_ms(latencies, 1.0),
        "mean_ms": round(statistics.mean(latencies) * 1000, 1) if latencies else None,
        "server_pss_mib_idle_before": round(idle_before / 2**20, 1),
        "server_pss_mib_idle_with_watchers": round(idle_after / 2**20, 1),
        "server_kib_per_idle_watcher": round(per_watcher / 1024, 1) if per_watcher else None,
        "client_cpu_seconds": round(client_cpu, 1),
        # While the players play and the rounds run (the client: this process only).
        "cores_busy_during_rounds": cpu,
        "players_during_rounds": players,
    }


def main() -> None:
    parser = prod_server.bench_parser(__doc__, "astrocyte_bench_fanout", 2)
    parser.add_argument("--watchers", type=int, default=10_000)
    parser.add_argument(
        "--client-processes", type=int, help=f"default: one per {WATCHERS_PER_CLIENT} watchers"
    )
    parser.add_argument("--connects-per-s", type=float, default=400.0, help="in all")
    parser.add_argument("--players", type=int, default=100, help="playing meanwhile")
    parser.add_argument("--player-rate", type=float, default=100.0, help="their posts/s in all")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--wait", type=float, default=4.0, help="seconds allowed per round")
    parser.add_argument(
        "--client",
        choices=["light", "websockets", "websockets-deflate"],
        default="light",
        help="the watchers' client: bench/ws_light_client.py (least client CPU), or the "
        "websockets library without or with offering permessage-deflate (the client of "
        "the figures measured before the light one: websockets-deflate; the server "
        "declines it)",
    )
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    args.client_processes = args.client_processes or max(
        1, math.ceil(args.watchers / WATCHERS_PER_CLIENT)
    )

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.watchers + 1024:
        sys.exit(f"the file limit ({hard}) is too low for {args.watchers} watchers: ulimit -Hn")
    if not args.port:
        args.port = prod_server.free_port()
    load.recreate_database(args.database_url)
    load.flush_redis(args.redis_url)
    load.setup_django(args)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    server: subprocess.Popen[bytes] | None = prod_server.start_server(
        port=args.port,
        workers=args.workers,
        database_url=args.database_url,
        redis_url=args.redis_url,
        extra_env=load.HIGH_RATES,
    )
    try:
        result = run(args, server.pid if server else None)
    finally:
        if server is not None:
            prod_server.stop_server(server)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if result["p99_ms"] is not None:
        verdict = "meets" if result["p99_ms"] <= TARGET_P99_S * 1000 else "misses"
        print(f"p99 {result['p99_ms']} ms {verdict} the target of {TARGET_P99_S * 1000:.0f} ms")


if __name__ == "__main__":
    main()
