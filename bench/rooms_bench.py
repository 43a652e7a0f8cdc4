"""200 race rooms of 4 racing at once (issue 17, "Figure"): progress pushes after each
accepted action.

Run from the repository root, with PostgreSQL and Redis as in CI::

    .venv/bin/python -m bench.rooms_bench \\
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench_rooms \\
        --redis-url redis://127.0.0.1:6379/5

It recreates that database, verifies one practice deal with the solver (the pipeline's
``deal_verify``), makes ``--rooms`` times ``--racers`` players with API tokens, opens the rooms
and starts their races with the rooms services (a 3 s countdown), starts the production
server (``scripts/dev.py run --prod``), and connects every racer's WebSocket to its room
(``/ws/rooms/<code>/``). Then every racer plays the deal's solution through the attempts
API for ``--seconds``, one action every ``--interval`` seconds on average, with jitter:
``--transport http``, one action a post, keep-alive; ``--transport socket``, one action a
message over the racer's play socket, ``ws/attempts/<id>/play/``. For every accepted
action (its answer's ``action_count`` n), each of the room's ``--racers`` sockets waits for
the ``progress`` message of that racer with ``action_count`` n; the latency is its arrival
minus the arrival of the action's 200 answer (0 when the push came first: it leaves on the
commit, before the answer is written). Also reported: the same from the moment the action
was sent, and the actions' own latency. The first ``--warmup`` seconds (the server
processes' first requests) are played, not recorded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench import prod_server
from bench.api_load_bench import HIGH_RATES, Connection, make_players, recreate_database
from bench.ws_play_client import PlaySocketClient

TARGET_P99_MS = 500.0
VARIANT, SEED = "spider1", 2  # solved in well under a second


def setup_django(database_url: str, redis_url: str) -> None:
    import os

    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_races(rooms: int, racers: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The rooms, started: [{code, racers: [(token, attempt id, username)]}], and the deal's
    solution."""
    from rest_framework.authtoken.models import Token

    from games.models import Deal
    from games.services.deals import deal_create, deal_verify
    from rooms.models import Seat
    from rooms.services import room_create, room_join, room_start

    deal = deal_create(variant=VARIANT, seed=SEED, pool=Deal.Pool.PRACTICE)
    deal = deal_verify(deal_id=deal.pk, seconds=30.0)
    if deal.status != Deal.Status.VERIFIED or not deal.solution:
        sys.exit(f"the bench deal did not verify: {deal.status} {deal.last_error}")
    tokens = make_players(rooms * racers, secrets.token_hex(3))
    users = {t.key: t.user for t in Token.objects.filter(key__in=tokens).select_related("user")}
    races = []
    for n in range(rooms):
        players = [users[token] for token in tokens[n * racers : (n + 1) * racers]]
        room = room_create(
            host=players[0], variant=VARIANT, seats=racers, public=True, time_limit_minutes=60
        )
        for player in players[1:]:
            room_join(code=room.code, player=player)
        room_start(code=room.code, player=players[0])
        attempts = dict(Seat.objects.filter(room=room).values_list("player_id", "attempt_id"))
        races.append(
            {
                "code": room.code,
                "racers": [
                    (tokens[n * racers + i], attempts[player.pk], player.get_username())
                    for i, player in enumerate(players)
                ],
            }
        )
    return races, [str(action) for action in deal.solution]


@dataclass
class Tally:
    # (attempt id, action count) -> when its answer arrived / when the post was sent
    answered: dict[tuple[int, int], float] = field(default_factory=dict)
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    # (attempt id, action count) -> arrivals at the room's sockets
    pushes: dict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    post_latencies: list[float] = field(default_factory=list)
    refused: dict[int, int] = field(default_factory=dict)
    reconnects: int = 0
    client_lag: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sockets_ready: int = 0


async def watch(url: str, origin: str, tally: Tally, names: dict[str, int]) -> None:
    """One racer's socket (until cancelled): note every progress push (racer's attempt,
    action count) with its arrival time."""
    import websockets
    from websockets.typing import Origin

    try:
        async with websockets.connect(url, origin=Origin(origin), open_timeout=120) as ws:
            json.loads(await ws.recv())  # the room
            tally.sockets_ready += 1
            async for raw in ws:
                now = time.perf_counter()
                message = json.loads(raw)
                if message["type"] == "progress":
                    attempt = names.get(message["username"])
                    if attempt is not None:
                        key = (attempt, message["progress"]["action_count"])
                        tally.pushes[key].append(now)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        tally.errors.append(f"socket: {error!r}")


async def loop_lag(tally: Tally, stop: Any) -> None:
    """How late this client's own event loop wakes (its lag inflates every latency)."""
    while not stop.is_set():
        due = time.perf_counter() + 0.05
        await asyncio.sleep(0.05)
        tally.client_lag.append(max(0.0, time.perf_counter() - due))


async def race(
    port: int,
    token: str,
    attempt_id: int,
    solution: list[str],
    args: Any,
    tally: Tally,
    stop: Any,
    began: list[float],
) -> None:
    connection = Connection(port, token)
    play_socket = PlaySocketClient(port, token) if args.transport == "socket" else None
    await asyncio.sleep(random.uniform(0, args.interval))
    offset = 0
    path = f"/api/v1/attempts/{attempt_id}/actions/"
    try:
        if play_socket is not None:
            await play_socket.open(attempt_id)
        while not stop.is_set() and offset < len(solution):
            sent = time.perf_counter()
            payload = {"offset": offset, "actions": [solution[offset]]}
            try:
                if play_socket is not None:
                    status, body = await play_socket.ask(payload)
                else:
                    status, body = await connection.post(path, payload)
            except (OSError, asyncio.IncompleteReadError):
                # The server closed an idle keep-alive connection: post again on a new one
                # (the same batch at the same offset: a retry changes nothing).
                tally.reconnects += 1
                continue
            answered = time.perf_counter()
            if status == 200:
                offset = body["action_count"]
                if answered - began[0] >= args.warmup:
                    tally.sent[(attempt_id, offset)] = sent
                    tally.answered[(attempt_id, offset)] = answered
                    tally.post_latencies.append(answered - sent)
            else:
                tally.refused[status] = tally.refused.get(status, 0) + 1
                if status == 409 and body and body["error"]["code"] == "not_started":
                    await asyncio.sleep(0.2)
                    continue
            await asyncio.sleep(random.uniform(0.5, 1.5) * args.interval)
    except Exception as error:
        tally.errors.append(f"post: {error!r}")
    finally:
        await connection.close()
        if play_socket is not None:
            await play_socket.close()


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000, 1)


async def run(args: argparse.Namespace, races: list[dict[str, Any]], solution: list[str]) -> Any:
    tally = Tally()
    stop = asyncio.Event()
    origin = f"http://127.0.0.1:{args.port}"
    watchers = []
    for n, room in enumerate(races):
        names = {name: attempt for _, attempt, name in room["racers"]}
        url = f"ws://127.0.0.1:{args.port}/ws/rooms/{room['code']}/"
        for _ in room["racers"]:
            watchers.append(asyncio.create_task(watch(url, origin, tally, names)))
        if n % 25 == 24:
            await asyncio.sleep(0.05)
    deadline = time.monotonic() + 180
    while tally.sockets_ready + len(tally.errors) < len(watchers) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    print(f"{tally.sockets_ready} of {len(watchers)} sockets connected")
    began = [time.perf_counter()]
    lag = asyncio.create_task(loop_lag(tally, stop))
    racers = [
        asyncio.create_task(race(args.port, token, attempt, solution, args, tally, stop, began))
        for room in races
        for token, attempt, _ in room["racers"]
    ]
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.gather(*racers, return_exceptions=True)
    took = time.perf_counter() - began[0] - args.warmup
    await asyncio.sleep(2.0)  # the last pushes
    for watcher in watchers:
        watcher.cancel()
    await asyncio.gather(*watchers, lag, return_exceptions=True)

    after_answer: list[float] = []
    after_send: list[float] = []
    missing = 0
    for key, answered in tally.answered.items():
        arrivals = tally.pushes.get(key, [])
        missing += max(0, args.racers - len(arrivals))
        for arrived in arrivals[: args.racers]:
            after_answer.append(max(0.0, arrived - answered))
            after_send.append(arrived - tally.sent[key])
    accepted = len(tally.answered)
    return {
        "rooms": len(races),
        "racers": len(racers),
        "sockets": tally.sockets_ready,
        "seconds": round(took, 1),
        "accepted_posts": accepted,
        "accepted_per_second": round(accepted / took, 1),
        "refused": tally.refused,
        "reconnects": tally.reconnects,
        "deliveries": len(after_answer),
        "missing": missing,
        "errors": tally.errors[:3],
        "push_after_answer_ms": {
            "p50": pct(after_answer, 0.5),
            "p99": pct(after_answer, 0.99),
            "max": pct(after_answer, 1.0),
        },
        "push_after_send_ms": {
            "p50": pct(after_send, 0.5),
            "p99": pct(after_send, 0.99),
            "max": pct(after_send, 1.0),
        },
        "post_ms": {
            "p50": pct(tally.post_latencies, 0.5),
            "p99": pct(tally.post_latencies, 0.99),
        },
        "client_loop_lag_ms": {
            "p50": pct(tally.client_lag, 0.5),
            "p99": pct(tally.client_lag, 0.99),
        },
    }


def main() -> None:
    parser = prod_server.bench_parser(__doc__, "astrocyte_bench_rooms", 5)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--racers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=70.0, help="played, warm-up included")
    parser.add_argument(
        "--interval", type=float, default=4.0, help="mean seconds between a racer's actions"
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds played before anything is recorded"
    )
    parser.add_argument(
        "--transport",
        choices=["http", "socket"],
        default="http",
        help="the racers' actions as HTTP posts or over their play sockets",
    )
    args = parser.parse_args()

    prod_server.allow_open_files(args.rooms * args.racers * 4 + 256)
    if not args.port:
        args.port = prod_server.free_port()
    recreate_database(args.database_url)
    setup_django(args.database_url, args.redis_url)
    server = prod_server.start_server(
        port=args.port,
        workers=args.workers,
        database_url=args.database_url,
        redis_url=args.redis_url,
        extra_env=HIGH_RATES,
    )
    try:
        races, solution = make_races(args.rooms, args.racers)
        result = asyncio.run(run(args, races, solution))
    finally:
        prod_server.stop_server(server)
    result["transport"] = args.transport
    print(json.dumps(result, indent=2))
    p99 = result["push_after_answer_ms"]["p99"]
    if p99 is not None:
        verdict = "meets" if p99 <= TARGET_P99_MS else "misses"
        print(f"push p99 {p99} ms after the accepted answer {verdict} the target of 500 ms")


if __name__ == "__main__":
    main()
