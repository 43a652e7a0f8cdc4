"""Which leagues of a challenge have watchers now, so that a board flush computes theirs.

A league watcher marks its (challenge, league) on connect and again on each ping (every
20 s from the web client); a mark lasts ``WATCH_SECONDS``. With Redis the marks are a
sorted set per challenge (member: league id, score: when the mark runs out), shared by
every process; without it (the embedded single process) a dict of this process. A league
whose last watcher left is flushed until its mark runs out: one small query for nobody.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings
from django.core.cache import cache

WATCH_SECONDS = 90.0
KEY_EXPIRY_SECONDS = 2 * 24 * 3600  # a challenge's day and the one after

_local: dict[int, dict[int, float]] = {}
_local_lock = threading.Lock()


def _key(challenge_id: int) -> str:
    # The cache's prefix keeps deployments apart; the layer's, test workers sharing a Redis
    # (read from the settings: the pub/sub layer object answers only on an event loop).
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return str(cache.make_key(f"{prefix}:leagues:watched:{challenge_id}"))


def _redis() -> object | None:
    return cache.redis_client() if hasattr(cache, "redis_client") else None


def mark_watched(challenge_id: int, league_id: int) -> None:
    until = time.time() + WATCH_SECONDS
    client = _redis()
    if client is None:
        with _local_lock:
            _local.setdefault(challenge_id, {})[league_id] = until
        return
    key = _key(challenge_id)
    with client.pipeline() as pipe:  # type: ignore[attr-defined]
        pipe.zadd(key, {str(league_id): until})
        pipe.expire(key, KEY_EXPIRY_SECONDS)
        pipe.execute()


def watched_leagues(challenge_id: int) -> list[int]:
    """The leagues of the challenge with a mark that has not run out."""
    now = time.time()
    client = _redis()
    if client is None:
        with _local_lock:
            marks = _local.get(challenge_id, {})
            for league_id in [league for league, until in marks.items() if until <= now]:
                del marks[league_id]
            return sorted(marks)
    key = _key(challenge_id)
    with client.pipeline() as pipe:  # type: ignore[attr-defined]
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zrange(key, 0, -1)
        _, members = pipe.execute()
    return sorted(int(member) for member in members)
