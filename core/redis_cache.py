"""Django's Redis cache, with one connection pool and one client per process and URL.

Django's cache handler gives every thread (and, under ASGI, every request context) a cache
object of its own, and its Redis client makes a new ``redis.Redis`` on every call: a new
connection pool per cache object and ~200 response callbacks registered per command. On
the play API (a throttle read and write on every post) that was a new Redis connection per
request and then a few per cent of the request's CPU (docs/api.md). Pools and clients
here are shared by the whole process; redis-py's pool checks its pid, so they are safe
across the server's worker forks, and a client over a pool is safe to share by threads.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import redis
from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class SharedRedisPool:
    """``pool_class`` for the cache: one ``redis.ConnectionPool`` per process and URL."""

    _shared: ClassVar[dict[str, redis.ConnectionPool]] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> redis.ConnectionPool:
        key = f"{url} {sorted(kwargs.items())!r}"
        with cls._lock:
            if key not in cls._shared:
                cls._shared[key] = redis.ConnectionPool.from_url(url, **kwargs)
            return cls._shared[key]


class SharedClientRedisCacheClient(RedisCacheClient):
    """Hands out one ``redis.Redis`` per connection pool instead of a new one per call."""

    _clients: ClassVar[dict[int, redis.Redis]] = {}
    _lock = threading.Lock()

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # django-stubs leaves out RedisCacheClient's private helpers used here.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            with self._lock:
                made = self._client(connection_pool=pool)  # type: ignore[attr-defined]
                client = self._clients.setdefault(id(pool), made)
        return client


class SharedRedisCache(RedisCache):
    """``BACKEND`` for ``CACHES``: Django's ``RedisCache`` with the shared pool and client."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._options.setdefault("pool_class", SharedRedisPool)  # type: ignore[attr-defined]
        self._class = SharedClientRedisCacheClient

    def redis_client(self) -> redis.Redis:
        """The process's shared client (to the primary), for what the cache API lacks
        (core/throttles.py pipelines a count, its expiry and a read)."""
        return self._cache.get_client(write=True)  # type: ignore[attr-defined]
