"""CPU per action post inside one server process, without the network (issue 4, "Figures").

Run from the repository root, with PostgreSQL and Redis as in CI::

    .venv/bin/python -m bench.api_cpu_bench --handler asgi
    .venv/bin/python -m bench.api_cpu_bench --handler django-asgi   # Django's own ASGI handler
    .venv/bin/python -m bench.api_cpu_bench --handler wsgi          # Django's WSGI handler alone
    .venv/bin/python -m bench.api_cpu_bench --handler socket        # over the play socket

The load bench (``bench.api_load_bench``) measures the whole machine; this one isolates
what the server process spends per request, which is what decides how many posts a core
carries, and it is far less sensitive to other work on the machine (it counts CPU time,
not wall time). It recreates the database ``--database-url`` (default
``astrocyte_bench_cpu``), makes today's spider1 daily as the load bench does, and
``--players`` players with API tokens; then, in this one process, every player starts its
ranked attempt and posts ``--posts`` actions of the solution one by one, all players at
once (asyncio; the ASGI handlers) or one after another (``wsgi``). Printed: CPU
milliseconds per request (process time, all threads) and wall milliseconds per request;
with the ASGI handlers the starts are made first and timed apart, so the figure is per
action post (``wsgi``: per request, the starts included).
``--handler socket``: every player starts over HTTP and opens its play socket
(``ws/attempts/<id>/play/``, through ``config.asgi``) before the clock starts; what is timed
is the actions only, one message each, so the figure is CPU per accepted socket action
(the handshake, once per game, is printed apart).
``--profile`` adds a cProfile of CPU time (only the main thread's: use ``--handler wsgi``).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench import api_load_bench as load

ROOT = Path(__file__).resolve().parent.parent


def headers(token: str, length: int) -> list[tuple[bytes, bytes]]:
    return [
        (b"host", b"127.0.0.1"),
        (b"authorization", f"Token {token}".encode()),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json"),
        (b"content-length", str(length).encode()),
    ]


def two_phases(
    prepare: Callable[[str], Awaitable[None]],
    play: Callable[[str], Awaitable[None]],
    batch: list[str],
    posts: int,
    label: str | None = None,
) -> tuple[float, float, int]:
    """Every player of ``batch`` prepared (its start, its socket), then all of them playing
    at once: the CPU and wall seconds of the play and the actions played. With ``label``
    the preparation's CPU a player is printed, as not in the figure."""

    async def go() -> tuple[float, float, int]:
        spent = time.process_time()
        await asyncio.gather(*(prepare(token) for token in batch))
        spent = time.process_time() - spent
        if label is not None:
            print(
                f"{label} {spent / len(batch) * 1000:.2f} ms CPU a player (not in the figure below)"
            )
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(play(token) for token in batch))
        return time.process_time() - cpu, time.perf_counter() - wall, len(batch) * posts

    return asyncio.run(go())


def asgi_caller(application: Any) -> Any:
    async def call(path: str, token: str, payload: Any) -> tuple[int, Any]:
        body = json.dumps(payload).encode() if payload is not None else b""
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers(token, len(body)),
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
        }
        sent, done = False, asyncio.Event()
        status: list[int] = []
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            else:
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    done.set()

        await application(scope, receive, send)
        return status[0], json.loads(b"".join(chunks) or b"null")

    return call


def wsgi_caller(application: Any) -> Any:
    def call(path: str, token: str, payload: Any) -> tuple[int, Any]:
        body = json.dumps(payload).encode() if payload is not None else b""
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "CONTENT_LENGTH": str(len(body)),
            "CONTENT_TYPE": "application/json",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_ACCEPT": "application/json",
            "HTTP_AUTHORIZATION": f"Token {token}",
        }
        status: list[int] = []

        def start_response(line: str, _headers: Any, _exc: Any = None) -> None:
            status.append(int(line.split()[0]))

        answer = b"".join(application(environ, start_response))
        return status[0], json.loads(answer or b"null")

    return call


class AsgiSocket:
    """One play socket driven straight through the ASGI application, in this process."""

    def __init__(self, application: Any, attempt_id: int, token: str) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        path = f"/ws/attempts/{attempt_id}/play/"
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Token {token}".encode())],
            "subprotocols": [],
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
        }
        self.task = asyncio.create_task(application(scope, self.inbox.get, self.outbox.put))
        self.next_id = 0

    async def connect(self) -> None:
        await self.inbox.put({"type": "websocket.connect"})
        accepted = await self.outbox.get()
        ready = await self.outbox.get()
        if accepted["type"] != "websocket.accept" or '"ready"' not in ready.get("text", ""):
            sys.exit(f"play socket refused: {accepted} {ready}")

    async def ask(self, payload: dict[str, Any]) -> tuple[int, Any]:
        self.next_id += 1
        message = json.dumps({"type": "actions", "id": self.next_id, **payload})
        await self.inbox.put({"type": "websocket.receive", "text": message})
        answer = json.loads((await self.outbox.get())["text"])
        return answer["status"], answer["body"]

    async def close(self) -> None:
        await self.inbox.put({"type": "websocket.disconnect", "code": 1000})
        await self.task


def check(result: tuple[int, Any], what: str) -> Any:
    status, answer = result
    if status not in (200, 201):
        sys.exit(f"{what}: {status} {answer}")
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--handler", choices=["asgi", "django-asgi", "wsgi", "socket"], default="asgi"
    )
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_bench_cpu"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--posts", type=int, default=20, help="actions per player")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    os.environ.update({"DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 50, **load.HIGH_RATES})
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    load.recreate_database(args.database_url)
    load.flush_redis(args.redis_url)
    load.setup_django(args)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    challenge_id, solution = load.make_daily()
    tokens = load.make_players(args.players, "cpu")
    connections.close_all()
    start_path = f"/api/v1/challenges/{challenge_id}/start/"

    if args.handler == "wsgi":
        from django.core.handlers.wsgi import WSGIHandler

        call = wsgi_caller(WSGIHandler())

        def play(token: str) -> None:
            attempt = check(call(start_path, token, None), "start")
            for n in range(args.posts):
                payload = {"offset": n, "actions": [solution[n]]}
                check(call(f"/api/v1/attempts/{attempt['id']}/actions/", token, payload), "post")

        def run(batch: list[str]) -> None:
            for token in batch:
                play(token)
    elif args.handler == "socket":
        from config.asgi import application

        acall = asgi_caller(application)
        sockets: dict[str, AsgiSocket] = {}

        async def opened(token: str) -> None:
            attempt = check(await acall(start_path, token, None), "start")
            sockets[token] = AsgiSocket(application, attempt["id"], token)
            await sockets[token].connect()

        async def splay(token: str) -> None:
            for n in range(args.posts):
                payload = {"offset": n, "actions": [solution[n]]}
                check(await sockets[token].ask(payload), "socket action")
            await sockets.pop(token).close()

        # the sockets are opened first, outside the clock
        prepare, play_all, prepared = opened, splay, "socket: start + handshake"
    else:
        if args.handler == "asgi":
            from config.asgi import application
        else:
            from django.core.asgi import get_asgi_application

            application = get_asgi_application()
        acall = asgi_caller(application)
        attempts: dict[str, int] = {}

        async def astart(token: str) -> None:
            attempts[token] = check(await acall(start_path, token, None), "start")["id"]

        async def aposts(token: str) -> None:
            path = f"/api/v1/attempts/{attempts.pop(token)}/actions/"
            for n in range(args.posts):
                payload = {"offset": n, "actions": [solution[n]]}
                check(await acall(path, token, payload), "post")

        # the starts first, timed apart: the figure is CPU per action post
        prepare, play_all, prepared = astart, aposts, f"{args.handler}: start"

    if args.handler != "wsgi":

        def run(batch: list[str]) -> None:
            two_phases(prepare, play_all, batch, args.posts)

    run(tokens[:2])  # warm-up: imports, connections, caches
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    if args.handler != "wsgi":
        cpu, wall, requests = two_phases(prepare, play_all, tokens[2:], args.posts, prepared)
        actions = "socket actions" if args.handler == "socket" else "action posts"
        what = f"{requests} {actions} ({len(tokens) - 2} players x {args.posts})"
    else:
        cpu, wall = time.process_time(), time.perf_counter()
        run(tokens[2:])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        requests = (len(tokens) - 2) * (args.posts + 1)
        what = (
            f"{requests} requests ({len(tokens) - 2} players x {args.posts} posts + their starts)"
        )
    print(
        f"{args.handler}: {what}: CPU {cpu / requests * 1000:.2f} ms/request, "
        f"wall {wall / requests * 1000:.2f} ms/request"
    )
    if profiler is not None:
        import pstats

        profiler.disable()
        stats = pstats.Stats(profiler)
        if os.environ.get("PROFILE_OUT"):
            stats.dump_stats(os.environ["PROFILE_OUT"])
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
