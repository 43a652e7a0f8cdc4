"""Players and watchers through faults on the production server: acknowledged, stored, lost.

Run from the repository root, with PostgreSQL as in CI (the machine's Redis is not used)::

    .venv/bin/python -m bench.fault_bench --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench_faults

It (re)creates the database of ``--database-url`` and migrates it, makes today's verified
spider1 daily (as ``bench.api_load_bench`` does) and ``--players`` players with API tokens
for each transport, starts a redis-server of its own (no persistence) and the production
server (``scripts/dev.py run --prod --workers 2``) on them. Each player starts its ranked
attempt and plays the deal's stored solution one action a post, every
``--interval`` seconds: half over HTTP (``POST attempts/<id>/actions/``), half over the play
socket (a new socket every ``--reconnect-every`` posts, so that handshakes meet the
faults, and after a close; a batch left unanswered by a drop is sent again, a retry).
``--watchers`` watch the daily's board (``ws/challenges/<id>/``) and connect again after
a close. The faults, in this order:

- Redis stopped for ``--redis-down`` seconds, then started again on the same port;
- every connection to the bench database terminated (``pg_terminate_backend``: what a
  PostgreSQL restart does to them; the machine's PostgreSQL is shared, so not restarted);
- the same again.

At the end it compares each attempt's stored log with the actions its player saw
acknowledged (200): ``lost`` (acknowledged, not stored) and ``phantom`` (stored, never
sent) must be 0. It prints the answers by status, the socket handshakes refused, the
watchers' close codes, and the recovery times: from Redis answering again to every watcher
served a snapshot, and from each fault to every player's next acknowledged post.
Bounded: about ``4 * --phase + --redis-down`` seconds of play.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from bench import prod_server
from bench.api_load_bench import (
    HIGH_RATES,
    flush_redis,
    make_daily,
    make_players,
    recreate_database,
    setup_django,
)
from bench.ws_play_client import PlaySocketClient, SocketClosed
from tests.own_redis import OwnRedis


@dataclass
class Player:
    token: str
    transport: str
    attempt_id: int = 0
    acknowledged: int = 0  # actions answered 200, in order (a prefix of the line)
    sent: int = 0  # the furthest offset + batch ever sent
    last_ack_at: float = 0.0
    ack_times: list[float] = field(default_factory=list)


@dataclass
class Tally:
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    refused_handshakes: collections.Counter[str] = field(default_factory=collections.Counter)
    watcher_closes: collections.Counter[str] = field(default_factory=collections.Counter)
    snapshots: list[float] = field(default_factory=list)
    handshakes: int = 0


def http(port: int, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/{path}",
        data=data,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, None
    except OSError as error:
        return 0, repr(error)


async def play(
    args: argparse.Namespace, player: Player, line: list[str], stop: asyncio.Event, tally: Tally
) -> None:
    port, interval = args.port, args.interval
    socket_client: PlaySocketClient | None = None
    posts = 0
    while not stop.is_set() and player.acknowledged < len(line):
        posts += 1
        if socket_client is not None and posts % args.reconnect_every == 0:
            await socket_client.close()
            socket_client = None
        offset = player.acknowledged
        body = {"offset": offset, "actions": line[offset : offset + 1]}
        if player.transport == "http":
            status, _ = await asyncio.to_thread(
                http, port, "POST", f"attempts/{player.attempt_id}/actions/", player.token, body
            )
        else:
            try:
                if socket_client is None:
                    socket_client = PlaySocketClient(port, player.token)
                    tally.handshakes += 1
                    await socket_client.open(player.attempt_id)
                status, _ = await socket_client.ask(body)
            except (SocketClosed, OSError, asyncio.IncompleteReadError) as error:
                tally.refused_handshakes[str(error)[:60]] += 1
                if socket_client is not None:
                    await socket_client.close()
                socket_client = None
                status = -1
        player.sent = max(player.sent, offset + 1)
        tally.statuses[f"{player.transport} {status}"] += 1
        if status == 200:
            player.acknowledged += 1
            player.last_ack_at = time.monotonic()
            player.ack_times.append(player.last_ack_at)
        await asyncio.sleep(interval)
    if socket_client is not None:
        await socket_client.close()


async def watch(port: int, challenge_id: int, stop: asyncio.Event, tally: Tally) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    url = f"ws://127.0.0.1:{port}/ws/challenges/{challenge_id}/"
    while not stop.is_set():
        try:
            async with connect(url, origin=f"http://127.0.0.1:{port}", open_timeout=10) as ws:  # type: ignore[arg-type]
                first = json.loads(await ws.recv())
                if first.get("type") == "snapshot":
                    tally.snapshots.append(time.monotonic())
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(ws.recv(), 0.5)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            tally.watcher_closes[str(code)] += 1
            await asyncio.sleep(0.5)  # a client's back-off before connecting again
        except (InvalidStatus, OSError, TimeoutError) as error:
            tally.watcher_closes[type(error).__name__] += 1
            await asyncio.sleep(0.5)


def terminate_connections(database_url: str) -> int:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


def recovery(players: list[Player], at: float) -> float:
    """Seconds from ``at`` to the last player's first acknowledged post after it."""
    worst = 0.0
    for player in players:
        after = [t for t in player.ack_times if t >= at]
        if after:
            worst = max(worst, after[0] - at)
    return worst


async def run(
    args: argparse.Namespace, redis: OwnRedis, challenge_id: int, line: list[str], tokens: list[str]
) -> None:
    players = [
        Player(token, "http" if n < args.players else "socket") for n, token in enumerate(tokens)
    ]
    for player in players:
        status, body = await asyncio.to_thread(
            http, args.port, "POST", f"challenges/{challenge_id}/start/", player.token, {}
        )
        if status != 201:
            sys.exit(f"start answered {status}: {body}")
        player.attempt_id = int(body["id"])

    tally = Tally()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play(args, p, line, stop, tally)) for p in players]
    tasks += [
        asyncio.create_task(watch(args.port, challenge_id, stop, tally))
        for _ in range(args.watchers)
    ]
    began = time.monotonic()
    events: list[tuple[str, float]] = []
    await asyncio.sleep(args.phase)
    redis.stop()
    events.append(("redis stopped", time.monotonic()))
    await asyncio.sleep(args.redis_down)
    back = time.monotonic()  # from the start command on: a watcher may be in at once
    redis.start()
    events.append(("redis started", back))
    await asyncio.sleep(args.phase)
    for label in ("postgres connections terminated (1)", "postgres connections terminated (2)"):
        killed = await asyncio.to_thread(terminate_connections, args.database_url)
        events.append((f"{label}: {killed}", time.monotonic()))
        await asyncio.sleep(args.phase)
    stop.set()
    await asyncio.gather(*tasks)

    from games.models import Attempt

    lost = phantom = stored_total = acknowledged_total = 0
    for player in players:
        attempt = await asyncio.to_thread(Attempt.objects.get, pk=player.attempt_id)
        stored = [str(action) for action in attempt.log]
        stored_total += len(stored)
        acknowledged_total += player.acknowledged
        if stored != line[: len(stored)]:
            phantom += 1
        lost += max(0, player.acknowledged - len(stored))
        phantom += max(0, len(stored) - player.sent)

    print(f"the line: {len(line)} actions")
    print(f"players: {args.players} over HTTP, {args.players} over the play socket;")
    print(f"watchers: {args.watchers}; one action a post every {args.interval} s")
    for label, at in events:
        print(f"  {at - began:6.1f} s  {label}")
    print(f"acknowledged: {acknowledged_total}  stored: {stored_total}", end="  ")
    print(f"lost: {lost}  phantom: {phantom}")
    fives = sum(n for key, n in tally.statuses.items() if key.split()[1].startswith("5"))
    print(
        f"answers by transport and status: {dict(sorted(tally.statuses.items()))}  (5xx: {fives})"
    )
    print(f"play socket handshakes: {tally.handshakes}", end="; ")
    print(f"drops and refusals: {dict(tally.refused_handshakes)}")
    print(f"watcher closes: {dict(tally.watcher_closes)}")
    snapshots_after = [t for t in tally.snapshots if t >= back]
    if snapshots_after:
        print(
            "watchers served a snapshot again: the last "
            f"{max(snapshots_after[: args.watchers]) - back:.2f} s after redis-server was started"
            " (the bench's watchers wait 0.5 s after a close before connecting again)"
            if len(snapshots_after) >= args.watchers
            else f"only {len(snapshots_after)} watcher(s) served a snapshot after Redis was back"
        )
    for label, at in events:
        took = recovery(players, at)
        print(f"recovery after '{label}': every player acknowledged again within {took:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_bench_faults"
    )
    parser.add_argument("--players", type=int, default=4, help="per transport")
    parser.add_argument("--watchers", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.3)
    parser.add_argument("--phase", type=float, default=7.0)
    parser.add_argument("--reconnect-every", type=int, default=5)
    parser.add_argument("--redis-down", type=float, default=8.0)
    args = parser.parse_args()
    args.port = prod_server.free_port()
    redis = OwnRedis(prod_server.free_port())
    redis.start()
    server = None
    try:
        recreate_database(args.database_url)
        flush_redis(redis.url)
        args.redis_url = redis.url
        setup_django(args)
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        challenge_id, line = make_daily()
        tokens = make_players(2 * args.players, secrets.token_hex(3))
        server = prod_server.start_server(
            port=args.port,
            workers=2,
            database_url=args.database_url,
            redis_url=redis.url,
            extra_env=HIGH_RATES,
        )
        asyncio.run(run(args, redis, challenge_id, line, tokens))
    finally:
        if server is not None:
            prod_server.stop_server(server)
        redis.stop()


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main()
