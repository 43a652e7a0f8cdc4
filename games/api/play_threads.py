"""The threads that play batches with a database connection each, held between batches.

The play socket's messages run their database work on a few threads of their own (half
of WEB_THREADS, at least 2), not on asgiref's one thread-sensitive thread (every
consumer's reads queue there) nor on the HTTP threads of Django's stack. Each thread keeps
its database connection from one batch to the next (the per-request checkout and health
check of the pool, gone) and gives it back after an error; with the HTTP threads that stays
under DATABASE_POOL_MAX_SIZE.
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import DatabaseError, connection, connections

_executor: ThreadPoolExecutor | None = None


def play_threads() -> int:
    return max(2, settings.WEB_THREADS // 2)


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=play_threads(), thread_name_prefix="play")
    return _executor


def _with_held_connection(function: Any, *args: Any) -> Any:
    if connection.errors_occurred:  # a failure last time: keep the connection if it works
        if connection.is_usable():
            connection.errors_occurred = False
        else:
            connection.close()
    try:
        return function(*args)
    except DatabaseError:
        connection.close()
        raise


def in_play_thread(function: Any) -> Any:
    """``function`` made awaitable, run on the play threads, on the thread's own database
    connection."""
    return SyncToAsync(
        functools.partial(_with_held_connection, function),
        thread_sensitive=False,
        executor=_pool(),
    )


def on_every_play_thread(function: Any) -> None:
    """Run ``function`` once on each play thread, every thread at once (each its own
    connection): give them back, or (tests) have each hold one."""
    executor = _pool()
    count = executor._max_workers  # (the pool's own size, whatever the settings say now)
    barrier = threading.Barrier(count)  # one task on each thread, every thread at once

    def on_this_thread() -> None:
        barrier.wait(timeout=10)
        function()

    for future in [executor.submit(on_this_thread) for _ in range(count)]:
        future.result()


def release_connections() -> None:
    """Give back the connection each play thread holds (tests; a process that stops)."""
    if _executor is None:
        return
    on_every_play_thread(connections.close_all)
