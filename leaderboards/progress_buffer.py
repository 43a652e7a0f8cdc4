"""Players' progress rows waiting for their challenge's next progress push.

Every process that commits an action may add rows (gathered in the process for a moment
and added together: leaderboards/live.py); one process flushes the window
(leaderboards/live.py). With the Redis cache the rows wait in one Redis hash per
challenge (field: the attempt id, so a player's later row replaces the earlier one), and
the flush takes them all at once (HGETALL and DEL in one transaction): whichever process
flushes sends every row added anywhere. Without Redis (the embedded single process), or
when Redis fails, they wait in this process's memory.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from django.core.cache import cache

log = logging.getLogger(__name__)

# A hash left behind by a process that died before flushing goes away on its own.
BUFFER_EXPIRY_SECONDS = 30

_lock = threading.Lock()
_local: dict[int, dict[int, dict[str, Any]]] = {}


def _client() -> Any | None:
    redis_client = getattr(cache, "redis_client", None)
    return redis_client() if redis_client is not None else None


def _key(prefix: str, challenge_id: int) -> str:
    return f"{prefix}:leaderboards:progress:{challenge_id}"


def add(prefix: str, challenge_id: int, rows: list[dict[str, Any]]) -> None:
    """Keep ``rows`` (progress rows, each with its ``attempt_id``) for the next push: one
    round trip for them all."""
    if not rows:
        return
    client = _client()
    if client is not None:
        try:
            key = _key(prefix, challenge_id)
            with client.pipeline(transaction=False) as pipe:
                pipe.hset(key, mapping={str(row["attempt_id"]): json.dumps(row) for row in rows})
                pipe.expire(key, BUFFER_EXPIRY_SECONDS)
                pipe.execute()
            return
        except Exception as error:
            log.warning("progress rows kept in this process, Redis failed: %r", error)
    with _lock:
        kept = _local.setdefault(challenge_id, {})
        for row in rows:
            kept[row["attempt_id"]] = row


def take(prefix: str, challenge_id: int) -> list[dict[str, Any]]:
    """Every row kept for the challenge (one per attempt, the latest), removed."""
    with _lock:
        rows = list(_local.pop(challenge_id, {}).values())
    client = _client()
    if client is not None:
        try:
            key = _key(prefix, challenge_id)
            with client.pipeline(transaction=True) as pipe:
                pipe.hgetall(key)
                pipe.delete(key)
                kept, _ = pipe.execute()
            rows += [json.loads(value) for value in kept.values()]
        except Exception as error:
            log.warning("progress rows in Redis not read: %r", error)
    latest = {row["attempt_id"]: row for row in rows}
    return sorted(latest.values(), key=lambda row: row["attempt_id"])
