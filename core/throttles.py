"""Rate limits as sliding-window counters: one Redis round trip a request, or a lease.

DRF's ``SimpleRateThrottle`` keeps each client's history of request times as a pickled
list in the cache, read and written back on every request (two round trips, and a list
that grows with the rate). On the play API that was about a seventh of an action post's
CPU (docs/api.md). Here each client and scope has one counter per window of the rate's
duration; a request is allowed while

    previous window's count * (the part of the previous window still inside the last
    duration) + this window's count  <=  the rate's number of requests,

the sliding-window estimate (it assumes the previous window's requests were spread
evenly). With Redis the increment, its expiry and the read of the previous window go in
one pipelined round trip; with another cache (the embedded run's local memory) through
the cache API. A refused request is not counted, so a client that waits the ``wait`` it
was given gets through.

Rates, scopes and the 429 answer are DRF's (``DEFAULT_THROTTLE_RATES``, ``throttle_scope``,
``Throttled``); only the counting differs.

A signed-in client's requests in one scope are taken from its counter a *lease* at a time
(``RequestLease``: a second's worth of the rate, counted before they are made), so a
player posting actions costs one round trip a second, not one a request. Each server
process holds its clients' leases (``HeldLeases``), whichever transport their requests
came by. Rates of less than two a second are counted request by request.

The counters are not worth an outage: when the cache cannot be reached (Redis down) a
request is let through uncounted (fail open), one warning line says so for the whole
outage, and for ``OUTAGE_RETRY_SECONDS`` after a failure requests do not even try, so a
Redis that hangs rather than refuses costs one timeout per interval, not one per request.
The game keeps serving from PostgreSQL; a line at INFO says when counting resumes.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections import OrderedDict
from typing import Any

from django.core.cache import caches
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from core.redis_cache import SharedRedisCache

log = logging.getLogger(__name__)

# What a cache that cannot be reached raises (redis-py's errors; sockets' OSError).
COUNTER_ERRORS = (RedisError, OSError)
OUTAGE_RETRY_SECONDS = 5.0


class CounterOutage:
    """Whether the counters are reachable, shared by the process's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.down_since: float | None = None
        self.retry_at = 0.0

    def skipping(self) -> bool:
        """True while a recent failure says not to try the cache yet."""
        return self.down_since is not None and time.monotonic() < self.retry_at

    def failed(self, error: BaseException) -> None:
        with self._lock:
            now = time.monotonic()
            self.retry_at = now + OUTAGE_RETRY_SECONDS
            if self.down_since is None:
                self.down_since = now
                log.warning(
                    "rate limits not counted (fail open) until the cache answers again: %r",
                    error,
                )

    def answered(self) -> None:
        if self.down_since is None:
            return
        with self._lock:
            if self.down_since is not None:
                log.info(
                    "rate limits counted again after %.1f s", time.monotonic() - self.down_since
                )
                self.down_since = None


_outages: dict[str, CounterOutage] = {}
_outages_lock = threading.Lock()


def counter_outage(cache: Any) -> CounterOutage:
    """The outage state of one cache server (by its address: settings may change in tests)."""
    where = f"{type(cache).__name__} {getattr(cache, '_servers', '')}"
    outage = _outages.get(where)
    if outage is None:
        with _outages_lock:
            outage = _outages.setdefault(where, CounterOutage())
    return outage


def _window_key(key: str, window: int) -> str:
    return f"{key}:{window}"


def bump_window(cache: Any, key: str, window: int, ttl: int, cost: int = 1) -> tuple[int, int]:
    """Count ``cost`` requests in ``window``; the counts of ``window`` (with them) and
    ``window-1``."""
    current_key, previous_key = _window_key(key, window), _window_key(key, window - 1)
    if isinstance(cache, SharedRedisCache):
        current_key = cache.make_and_validate_key(current_key)
        previous_key = cache.make_and_validate_key(previous_key)
        pipe = cache.redis_client().pipeline(transaction=False)
        pipe.incrby(current_key, cost)
        pipe.expire(current_key, ttl)
        pipe.get(previous_key)
        current, _, previous = pipe.execute()
        return int(current), int(previous or 0)
    cache.add(current_key, 0, ttl)
    return int(cache.incr(current_key, cost)), int(cache.get(previous_key) or 0)


def unbump_window(cache: Any, key: str, window: int, cost: int = 1) -> None:
    """Take back a refused request's count."""
    # (ValueError: the window's counter expired meanwhile, nothing to take back)
    with contextlib.suppress(ValueError):
        cache.decr(_window_key(key, window), cost)


def seconds_to_wait(
    limit: int, duration: int, current: int, previous: int, into_window: float
) -> float:
    """How long until one more request fits, counts excluding the refused one."""
    fraction = into_window / duration
    if current + 1 > limit:
        # Not before the next window, and then until this window's weight has decayed.
        decayed = 1 - (limit - 1) / current if current else 0.0
        return (1 - fraction) * duration + max(0.0, decayed) * duration
    needed = 1 - (limit - current - 1) / previous if previous else fraction
    return max(0.0, needed - fraction) * duration


def take_request(
    cache: Any, key: str, limit: int, duration: int, now: float, cost: int = 1
) -> float | None:
    """Count ``cost`` requests of ``key`` at ``now``: None if within ``limit`` per
    ``duration`` seconds (or the counters are unreachable: fail open), else the seconds to
    wait (nothing is counted then)."""
    window = math.floor(now / duration)
    outage = counter_outage(cache)
    if outage.skipping():
        return None
    try:
        current, previous = bump_window(cache, key, window, ttl=2 * duration + 1, cost=cost)
    except COUNTER_ERRORS as error:
        outage.failed(error)
        return None
    outage.answered()
    into_window = now - window * duration
    weight = 1 - into_window / duration
    if previous * weight + current <= limit:
        return None
    with contextlib.suppress(*COUNTER_ERRORS):  # a lost take-back only over-counts
        unbump_window(cache, key, window, cost)
    return seconds_to_wait(limit, duration, current - cost, previous, into_window)


class RequestLease:
    """A client's requests taken from the shared window counter of ``key`` a lease at a
    time: one round trip per ``size`` requests instead of one per request, counted before
    they are made (so never fewer than made).

    A lease is good for ``duration`` seconds at most; when the counter has no room for a
    whole lease, requests are taken one by one, exactly as ``take_request`` does, so the
    limit holds to the request: at most ``size - 1`` of an expired lease go uncounted-for.
    """

    def __init__(self, key: str, limit: int, duration: int, size: int) -> None:
        self.key, self.limit, self.duration = key, limit, duration
        self.size = max(1, min(size, limit))
        self.left = 0
        self.until = 0.0

    def take(self, cache: Any, now: float) -> float | None:
        """None if one more request may go now, else the seconds to wait."""
        if self.left > 0 and now < self.until:
            self.left -= 1
            return None
        self.left = 0
        if self.size > 1 and (
            take_request(cache, self.key, self.limit, self.duration, now, self.size) is None
        ):
            self.left, self.until = self.size - 1, now + self.duration
            return None
        return take_request(cache, self.key, self.limit, self.duration, now)


def lease_size(limit: int, duration: int) -> int:
    """A lease's requests for a rate of ``limit`` per ``duration`` s: a second's worth."""
    return limit // max(1, duration)


class HeldLeases:
    """The leases a process holds, by counter key: at most ``size``, the least recently
    used dropped first (its requests were counted already: only over-counted). A lease
    is taken out for the time of one request, so two threads never share one."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._leases: OrderedDict[str, RequestLease] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str, limit: int, duration: int) -> RequestLease:
        with self._lock:
            lease = self._leases.pop(key, None)
        if lease is None or (lease.limit, lease.duration) != (limit, duration):
            lease = RequestLease(key, limit, duration, size=lease_size(limit, duration))
        return lease

    def give_back(self, lease: RequestLease) -> None:
        with self._lock:
            self._leases[lease.key] = lease
            while len(self._leases) > self.size:
                self._leases.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._leases.clear()


held_leases = HeldLeases()


def user_counter(scope: str, user_pk: Any) -> tuple[str, int, int] | None:
    """The counter key and rate (requests, seconds) of a signed-in user's requests in
    ``scope``, as ``WindowRateThrottle`` counts them; None when the scope has no rate."""
    throttle = WindowRateThrottle()
    throttle.scope = scope
    limit, duration = throttle.parse_rate(throttle.get_rate())
    if limit is None or duration is None:
        return None
    return throttle.cache_format % {"scope": scope, "ident": user_pk}, limit, duration


def take_user_request(cache: Any, key: str, limit: int, duration: int, now: float) -> float | None:
    """One signed-in user's request counted against ``key``: a lease at a time (the
    process's ``held_leases``) when the rate allows two or more a second, else on its own.
    None if it may go, else the seconds to wait."""
    if lease_size(limit, duration) <= 1:
        return take_request(cache, key, limit, duration, now)
    lease = held_leases.take(key, limit, duration)
    try:
        return lease.take(cache, now)
    finally:
        held_leases.give_back(lease)


class WindowRateThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle`` (per user, or per address when anonymous), counted in windows;
    a signed-in client's requests a lease at a time (``held_leases``)."""

    cache_alias = "default"

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        limit, duration = self.parse_rate(self.rate)
        if limit is None or duration is None:
            return True
        self.num_requests, self.duration = limit, duration
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        cache = caches[self.cache_alias]  # the backend itself, not Django's proxy to it
        if request.user.is_authenticated:
            wait = take_user_request(cache, key, limit, duration, self.timer())
        else:
            wait = take_request(cache, key, limit, duration, self.timer())
        if wait is None:
            return True
        self._wait = wait
        return False

    def wait(self) -> float | None:
        return getattr(self, "_wait", None)


class AddressRateThrottle(WindowRateThrottle):
    """Keyed by client address only, even for a signed-in session: signing in must not
    reset the count (sign-up, log-in, tokens)."""

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
