"""The morning's "today's deal is ready" to many subscribers, and the repeat visit's first
paint with and without the service worker.

    .venv/bin/python bench/push_bench.py send [--subscribers 100000] [--database-url URL]
    .venv/bin/python bench/push_bench.py paint [--visits 10]

`send` fills a database (a fresh SQLite file unless --database-url names an empty
PostgreSQL database) with players, one push subscription each at a local push service
(tests/push_service.py, RFC 8030, in a process of its own: it checks every VAPID token and
decrypts one message in 100), and today's daily; then times `send_reminders` for that one
kind: finding the players, claiming their once-a-day rows, encrypting, signing and posting
every message. The browsers' push services cannot be reached from here, so the round trip
is the local one's (well under a millisecond): on the real ones the time is theirs.

`paint` serves the site (uvicorn on a fresh SQLite file) and opens the home page in
Chromium once to install the worker, then times the first contentful paint of repeat
visits with the worker, and the same with service workers blocked: on the loopback, and
with a phone's round trip emulated on the page's requests (DevTools' network conditions).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.chromium import chromium_path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BROWSERS = 64  # distinct key pairs among the subscriptions (a key pair costs ~1 ms to make)


def serve_push(queue: Any) -> None:
    """The local push service, in its own process; sends its URL and its browsers' keys."""
    from tests.push_service import start_push_service

    service, server = start_push_service()
    service.decrypt_every = 100
    first = [service.subscribe() for _ in range(BROWSERS)]
    queue.put((service.url, first))
    tokens = [info["endpoint"].rsplit("/", 1)[-1] for info in first]
    # Every further token maps onto one of these browsers: the bench's endpoints are
    # /push/<browser token>-<n>; register them lazily on first use.
    original = service.take

    def take(token: str, headers: Any, body: bytes) -> tuple[int, str]:
        if token not in service.browsers and "-" in token:
            base = token.split("-", 1)[0]
            if base in service.browsers:
                service.browsers[token] = service.browsers[base]
        return original(token, headers, body)

    service.take = take  # type: ignore[method-assign]
    assert tokens
    server.serve_forever()


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DEBUG"] = "true"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fill(subscribers: int, browsers: list[dict[str, Any]], today: dt.date) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from bench.bench_rows import verified_daily
    from notifications.models import PushSubscription

    user_model = get_user_model()
    unusable = make_password(None)
    batch = 5000
    for start in range(0, subscribers, batch):
        names = [f"bench{n}" for n in range(start, min(subscribers, start + batch))]
        users = user_model.objects.bulk_create(
            [user_model(username=name, password=unusable) for name in names]
        )
        PushSubscription.objects.bulk_create(
            [
                PushSubscription(
                    player=user,
                    endpoint=f"{browser['endpoint']}-{start + i}",
                    p256dh=browser["keys"]["p256dh"],
                    auth=browser["keys"]["auth"],
                )
                for i, user in enumerate(users)
                for browser in [browsers[(start + i) % len(browsers)]]
            ]
        )
    verified_daily(today, "astrocyte", 987654321)


def command_send(args: argparse.Namespace) -> None:
    queue: Any = multiprocessing.get_context("spawn").Queue()
    push = multiprocessing.get_context("spawn").Process(target=serve_push, args=(queue,))
    push.start()
    try:
        url, browsers = queue.get(timeout=60)
        folder = tempfile.mkdtemp(prefix="push-bench-")
        setup_django(args.database_url or f"sqlite:///{folder}/bench.sqlite3")
        from django.conf import settings

        from notifications.kinds import Kind
        from notifications.reminders import deal_ready
        from notifications.sending import PUSH_THREADS, send_reminders
        from notifications.vapid import new_private_key

        settings.VAPID_PRIVATE_KEY = new_private_key()
        now = dt.datetime.now(dt.UTC)
        started = time.perf_counter()
        fill(args.subscribers, browsers, now.date())
        print(f"filled {args.subscribers} players and subscriptions in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip

        started = time.perf_counter()
        done = send_reminders(now, {Kind.DEAL_READY: deal_ready})
        elapsed = time.perf_counter() - started
        with urllib.request.urlopen(f"{url}/stats", timeout=30) as answer:
            stats = json.load(answer)
        counts = done.get("deal_ready", {})
        print(json.dumps(counts))
        print(f"push service: {stats['taken']} taken, {stats['decrypted']} decrypted, "
              f"refused {stats['refused']}; a message: {stats['messages'][:1]}")  # fmt: skip
        print(f"sent {counts.get('sent', 0)} of {args.subscribers} in {elapsed:.1f} s: "
              f"{counts.get('sent', 0) / elapsed:,.0f} a second, {PUSH_THREADS} pushes "
              f"in flight, database {settings.DATABASES['default']['ENGINE']}")  # fmt: skip
        again = time.perf_counter()
        second = send_reminders(now, {Kind.DEAL_READY: deal_ready})
        print(f"the next run of the beat (all sent already): {time.perf_counter() - again:.2f} s, "
              f"{second.get('deal_ready', {})}")  # fmt: skip
    finally:
        push.terminate()
        push.join()


def first_paints(base: str, visits: int, block: bool, profile: Path, latency: float) -> list[float]:
    from playwright.sync_api import sync_playwright

    paints = []
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--no-first-run"],
            service_workers="block" if block else "allow",
        )
        page = context.pages[0] if context.pages else context.new_page()
        if latency:
            # A phone's network: every request the page makes waits this long each way.
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            conditions = {"offline": False, "latency": latency, "downloadThroughput": -1}
            cdp.send("Network.emulateNetworkConditions", {**conditions, "uploadThroughput": -1})
        page.goto(f"{base}/")
        if not block:
            page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        for _ in range(visits):
            page.goto(f"{base}/", wait_until="load")
            paint = page.evaluate(
                """() => new Promise((done) => new PerformanceObserver((list) => {
                     const entry = list.getEntriesByName("first-contentful-paint")[0];
                     if (entry) done(entry.startTime);
                   }).observe({ type: "paint", buffered: true }))"""
            )
            paints.append(float(paint))
        context.close()
    return paints


def command_paint(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="paint-bench-"))
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{folder}/paint.sqlite3", REDIS_URL="",
               DEBUG="true", LOG_LEVEL="WARNING")  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                   check=True)  # fmt: skip
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
         "--lifespan", "off", "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/health/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        for latency in args.latency:
            for name, block in (("with", False), ("without", True)):
                profile = folder / f"{name}-{latency:.0f}"
                paints = first_paints(base, args.visits, block, profile, latency)
                print(
                    f"latency {latency:.0f} ms: repeat visit's first contentful paint {name} "
                    f"the worker: median {statistics.median(paints):.0f} ms, "
                    f"min {min(paints):.0f}, max {max(paints):.0f} ({len(paints)} visits)"
                )
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    send = commands.add_parser("send")
    send.add_argument("--subscribers", type=int, default=100_000)
    send.add_argument("--database-url", default="")
    paint = commands.add_parser("paint")
    paint.add_argument("--visits", type=int, default=10)
    paint.add_argument(
        "--latency", type=float, nargs="+", default=[0.0, 150.0],
        help="emulated round trip(s) of the page's requests, ms (0: this machine's loopback)",
    )  # fmt: skip
    args = parser.parse_args()
    {"send": command_send, "paint": command_paint}[args.command](args)


if __name__ == "__main__":
    main()
