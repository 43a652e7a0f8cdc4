"""The rate limits' window counters (core/throttles.py) against the ``limits`` library's.

Run from the repository root, with Redis as in CI (``limits`` is not a dependency of the
project: ``.venv/bin/pip install 'limits>=5,<6'`` first)::

    .venv/bin/python -m bench.window_counter_bench --redis-url redis://127.0.0.1:6379/11

Every case counts one request at a time, in this one process, and is measured
``--repeats`` times over ``--requests`` requests (the cases in turns, so drift on a shared
machine falls on all of them alike). Printed, per counted request: the median CPU time of
this process (``time.process_time``, all threads: what a server process spends), the median
wall time, Redis round trips (redis-py's sends, a pipeline one, counted in a pass of their
own: the count is not timed) and Redis's own CPU (``INFO cpu``, user + system; noisy when
other clients use the server).

The cases:

- ``ours``: ``core.throttles.take_request`` on the project's Redis cache
  (``SharedRedisCache``, as ``caches["default"]`` with ``REDIS_URL``) and on Django's
  local-memory cache (the embedded run);
- ``limits``: ``SlidingWindowCounterRateLimiter.hit`` on ``RedisStorage`` (over the very
  connection pool of the project's cache: its ``connection_pool`` argument) and on
  ``MemoryStorage``; a refused request also with ``get_window_stats``, the call that gives
  the time to wait (``take_request`` returns it with the refusal);
- ``throttle``: ``WindowRateThrottle.allow_request`` on a request made by Django's
  ``RequestFactory``, as a view runs it, anonymous (a counter round trip a request) and
  signed in at the ``actions`` rate (600/min: leases of ten), and the same throttle with
  ``take_request`` swapped for limits (its hit, and its window stats when refused).

"allowed" counts against a rate never reached; "refused" against a rate of one an hour
already spent (every request refused, nothing counted). Before the figures, what a client
is told at a rate of 3/min, ours and limits' on one clock.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable
from typing import Any

Case = tuple[str, Callable[[], Any], bool]  # name, one counted request, uses Redis


def setup_django(redis_url: str | None) -> None:
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def limits_library() -> Any:
    """The ``limits`` package, imported by name: it is the benchmark's, not a dependency."""
    try:
        return importlib.import_module("limits")
    except ImportError:
        raise SystemExit("needs limits: .venv/bin/pip install 'limits>=5,<6'") from None


def limits_take_request(limiter: Any, items: dict[tuple[int, int], Any]) -> Callable[..., Any]:
    """``take_request``'s signature over limits: its hit, and its window stats when
    refused (the wait); the outage handling kept, as a replacement would keep it."""
    from core import throttles

    limits = limits_library()

    def take(
        cache: Any, key: str, limit: int, duration: int, now: float, cost: int = 1
    ) -> float | None:
        item = items.get((limit, duration))
        if item is None:
            item = items[(limit, duration)] = limits.RateLimitItemPerSecond(limit, duration)
        outage = throttles.counter_outage(cache)
        if outage.skipping():
            return None
        try:
            if limiter.hit(item, key, cost=cost):
                outage.answered()
                return None
            reset_at = limiter.get_window_stats(item, key).reset_time
        except throttles.COUNTER_ERRORS as error:
            outage.failed(error)
            return None
        return max(0.0, reset_at - time.time())

    return take


def cases(redis_url: str | None) -> list[Case]:
    from django.conf import settings
    from django.contrib.auth.models import AnonymousUser
    from django.core.cache import caches
    from django.test import RequestFactory

    from core import throttles
    from core.redis_cache import SharedRedisCache

    limits = limits_library()
    RateLimitItemPerMinute = limits.RateLimitItemPerMinute
    MemoryStorage, RedisStorage = limits.storage.MemoryStorage, limits.storage.RedisStorage
    SlidingWindowCounterRateLimiter = limits.strategies.SlidingWindowCounterRateLimiter
    run = uuid.uuid4().hex[:8]
    settings.CACHES = {
        "locmem": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"bench-{run}",
        }
    }
    if redis_url:
        settings.CACHES["default"] = {
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": f"bench-window-{run}",
        }
    else:
        settings.CACHES["default"] = settings.CACHES["locmem"]
    now = time.time
    never, once = RateLimitItemPerMinute(10**9), limits.RateLimitItemPerHour(1)
    memory = SlidingWindowCounterRateLimiter(MemoryStorage())
    made: list[Case] = []

    def ours(kind: str, cache: Any, on_redis: bool) -> None:
        assert throttles.take_request(cache, "spent", 1, 3600, now()) is None
        made.append(
            (
                f"ours take_request, {kind}, allowed",
                lambda: throttles.take_request(cache, "open", 10**9, 60, now()),
                on_redis,
            )
        )
        made.append(
            (
                f"ours take_request, {kind}, refused (+ wait)",
                lambda: throttles.take_request(cache, "spent", 1, 3600, now()),
                on_redis,
            )
        )

    def theirs(kind: str, limiter: Any, on_redis: bool) -> None:
        assert limiter.hit(once, "spent")
        made.append((f"limits hit, {kind}, allowed", lambda: limiter.hit(never, "open"), on_redis))
        made.append((f"limits hit, {kind}, refused", lambda: limiter.hit(once, "spent"), on_redis))

        def refused_with_wait() -> float:
            limiter.hit(once, "spent")
            return limiter.get_window_stats(once, "spent").reset_time - time.time()

        made.append(
            (f"limits hit, {kind}, refused + get_window_stats", refused_with_wait, on_redis)
        )

    if redis_url:
        cache = caches["default"]
        assert isinstance(cache, SharedRedisCache)
        pool = cache.redis_client().connection_pool
        storage = RedisStorage(redis_url, connection_pool=pool, key_prefix=f"bench-limits-{run}")
        assert storage.get_connection().connection_pool is pool  # the project's own pool
        ours("Redis", cache, True)
        theirs("Redis", SlidingWindowCounterRateLimiter(storage), True)
        on_redis_limiter = SlidingWindowCounterRateLimiter(storage)
    else:
        on_redis_limiter = memory
    ours("locmem", caches["locmem"], False)
    theirs("MemoryStorage", memory, False)

    # The whole throttle, as a view runs it.
    class View:
        throttle_scope = "bench"

    class Player:
        is_authenticated = True
        pk = 7

    factory = RequestFactory()

    def asking(rate: str, user: Any, take: Callable[..., Any] | None) -> Callable[[], bool]:
        request = factory.post("/api/v1/attempts/1/actions/")
        request.user = user
        view = View()
        clock = [time.time()]

        def timer() -> float:  # half the rate of 10 a second: a lease lasts ten requests
            clock[0] += 0.2
            return clock[0]

        def ask() -> bool:
            throttle = throttles.WindowRateThrottle()
            throttle.THROTTLE_RATES = {"bench": rate}
            throttle.timer = timer
            if take is None:
                return throttle.allow_request(request, view)  # type: ignore[arg-type]
            saved = throttles.take_request
            throttles.take_request = take
            try:
                return throttle.allow_request(request, view)  # type: ignore[arg-type]
            finally:
                throttles.take_request = saved

        return ask

    kind = "Redis" if redis_url else "locmem"
    anonymous = AnonymousUser()
    with_limits = limits_take_request(on_redis_limiter, {})
    for label, take in (("ours", None), ("limits", with_limits)):
        if take is not None and not redis_url:
            kind = "MemoryStorage"
        spent = asking("1/hour", anonymous, take)
        spent()
        made.append(
            (
                f"throttle {label}, {kind}, anonymous, allowed",
                asking("1000000000/min", anonymous, take),
                bool(redis_url),
            )
        )
        made.append((f"throttle {label}, {kind}, anonymous, refused", spent, bool(redis_url)))
    made.append(
        (
            f"throttle ours, {'Redis' if redis_url else 'locmem'}, signed in 600/min (lease)",
            asking("600/min", Player(), None),
            bool(redis_url),
        )
    )
    return made


def behaviour() -> None:
    """A rate of 3/min on one clock: ours on local memory, limits on MemoryStorage (its
    clock, ``time.time``, patched: limits takes no time of its caller's)."""
    from unittest import mock

    from django.core.cache import caches

    from core import throttles

    limits = limits_library()
    memory = importlib.import_module("limits.storage.memory")
    limiter = limits.strategies.SlidingWindowCounterRateLimiter(limits.storage.MemoryStorage())
    item = limits.RateLimitItemPerMinute(3)
    clock = [6_000_000.0]  # the start of a minute window
    cache = caches["locmem"]
    key = f"behaviour-{uuid.uuid4().hex[:8]}"

    def ours() -> str:
        wait = throttles.take_request(cache, key, 3, 60, clock[0])
        return "allowed" if wait is None else f"refused, wait {wait:.1f} s"

    def theirs() -> str:
        if limiter.hit(item, key):
            return "allowed"
        wait = limiter.get_window_stats(item, key).reset_time - clock[0]
        return f"refused, wait {wait:.1f} s"

    with mock.patch.object(memory.time, "time", lambda: clock[0]):
        for when, requests in ((0.0, 4), (60.5, 2), (80.0, 1)):
            clock[0] = 6_000_000.0 + when
            for _ in range(requests):
                print(f"  3/min, {when:5.1f} s: ours {ours():<24} limits {theirs()}")


class RoundTrips:
    """Commands sent to Redis (redis-py's ``send_packed_command``: one per round trip)."""

    def __enter__(self) -> RoundTrips:
        from redis.connection import AbstractConnection

        self.sent = 0
        self.original = AbstractConnection.send_packed_command

        def counted(connection: Any, *args: Any, **kwargs: Any) -> Any:
            self.sent += 1
            return self.original(connection, *args, **kwargs)

        setattr(AbstractConnection, "send_packed_command", counted)  # noqa: B010
        return self

    def __exit__(self, *_: object) -> None:
        from redis.connection import AbstractConnection

        setattr(AbstractConnection, "send_packed_command", self.original)  # noqa: B010


def redis_cpu(redis_url: str | None) -> float:
    if not redis_url:
        return 0.0
    import redis

    info = redis.Redis.from_url(redis_url).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", default="", help="only cases whose name holds this")
    args = parser.parse_args()
    limits_library()  # before anything else: say at once if it is missing
    setup_django(args.redis_url)
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    measured = [case for case in cases(args.redis_url) if args.only in case[0]]
    trips: dict[str, float] = {}
    for name, one, _ in measured:
        for _ in range(50):  # warm: scripts loaded, connections open
            one()
        with RoundTrips() as counter:
            for _ in range(200):
                one()
        trips[name] = counter.sent / 200
    cpu: dict[str, list[float]] = {name: [] for name, _, _ in measured}
    wall: dict[str, list[float]] = {name: [] for name, _, _ in measured}
    server: dict[str, list[float]] = {name: [] for name, _, _ in measured}
    n = args.requests
    for _ in range(args.repeats):
        for name, one, on_redis in measured:
            server_before = redis_cpu(args.redis_url) if on_redis else 0.0
            cpu_before, wall_before = time.process_time(), time.perf_counter()
            for _ in range(n):
                one()
            cpu[name].append((time.process_time() - cpu_before) / n * 1e6)
            wall[name].append((time.perf_counter() - wall_before) / n * 1e6)
            if on_redis:
                server[name].append((redis_cpu(args.redis_url) - server_before) / n * 1e6)
    print("what a client is told (a window opens at 0 s):")
    behaviour()
    print(f"{n} requests x {args.repeats} repeats; medians, per counted request")
    print(f"{'case':<60} {'CPU µs':>8} {'wall µs':>8} {'trips':>6} {'Redis µs':>9}")
    for name, _, on_redis in measured:
        redis_figure = f"{statistics.median(server[name]):9.1f}" if on_redis else f"{'-':>9}"
        print(
            f"{name:<60} {statistics.median(cpu[name]):8.1f} {statistics.median(wall[name]):8.1f}"
            f" {trips[name]:6.2f} {redis_figure}"
        )
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
