"""Sending to a channel-layer group from any thread: returns at once, never raises.

Callers (signal receivers after a commit, services in a request thread, a Celery task)
hand the message over and go on; it is encoded once and sent to the group on the
broadcasting loop, so a slow or absent Redis never slows the caller, and a failure is one
warning line, not an exception. A message is ``{"type": event_type, "text": <payload as
JSON>}``: consumers forward ``text`` to their socket as it is, and only one that needs
the data parses it. (Each watcher's consumer decodes the message it is given: a payload
carried as a structure too would cost a watcher ~100 times more to decode than the
string alone, for each of thousands of watchers.)

The broadcasting loop: the loop this process's WebSocket consumers run on, once one has
connected (``register_consumer_loop``), else a daemon thread's loop of its own. One rule
for every layer: the in-memory layer (the embedded single-process run) reaches only the
consumers of its own loop, and with Redis that loop already holds the layer's connections;
a process that serves no WebSocket (a Celery worker, the admin) sends from its own loop,
and with the in-memory layer nobody there is listening.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, connection

from core.live.losses import count_loss

log = logging.getLogger(__name__)

SEND_TIMEOUT_SECONDS = 5.0
# Group joins and leaves in flight at once per loop: redis-py's pool refuses, rather than
# queues, a connection past its limit, which a crowd of watchers connecting together hit.
GROUP_CALLS_AT_ONCE = 32
_group_calls: dict[int, asyncio.Semaphore] = {}

T = TypeVar("T")

_lock = threading.Lock()
_consumer_loop: asyncio.AbstractEventLoop | None = None
_own_loop: asyncio.AbstractEventLoop | None = None
# Pushes handed over and not yet run to their end, by the loop they run on (``wait_idle``).
_pending: dict[asyncio.AbstractEventLoop, int] = {}
_settled = threading.Condition()


def register_consumer_loop() -> None:
    """Called by a consumer on connect, from its loop: send from there from now on."""
    global _consumer_loop
    _consumer_loop = asyncio.get_running_loop()


def group_calls_gate() -> asyncio.Semaphore:
    """Hold it around a consumer's ``group_add``/``group_discard`` (one per event loop:
    tests run a loop each)."""
    loop_id = id(asyncio.get_running_loop())
    gate = _group_calls.get(loop_id)
    if gate is None:
        gate = _group_calls[loop_id] = asyncio.Semaphore(GROUP_CALLS_AT_ONCE)
    return gate


def broadcast(group: str, event_type: str, payload: dict[str, Any]) -> None:
    """Send ``payload`` to every member of ``group`` as an ``event_type`` event."""
    submit(lambda: send(group, event_type, payload))


def submit(make: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``make()`` on the broadcasting loop; its failures are logged, never raised.

    A push that hands over another (a window's flush) does so before it ends, so
    ``wait_idle`` sees the work of one change as one stretch."""
    try:
        loop = broadcasting_loop()
        _count(loop, +1)
        try:
            future = asyncio.run_coroutine_threadsafe(_guarded(make, loop), loop)
        except Exception:
            _count(loop, -1)
            raise
        del future  # the guarded coroutine logs its own failures
    except Exception:
        count_loss("schedule")
        log.exception("live push not scheduled")


def wait_idle(timeout: float) -> bool:
    """Block until every push handed over has run to its end (and every push it handed over
    in turn), or ``timeout`` seconds; True when nothing is left. Pushes on a loop that no
    longer runs never will, and are not waited for. Not from the broadcasting loop itself."""
    deadline = time.monotonic() + timeout
    with _settled:
        while not _idle():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            # woken by each push's end; the bound re-checks loops that stopped meanwhile
            _settled.wait(min(left, 0.05))
    return True


def _idle() -> bool:
    """No push left that will run: each loop still holding some has stopped (a test's loop;
    the own loop runs as long as the process, from the moment its thread starts)."""
    for loop in [loop for loop in _pending if loop.is_closed()]:
        del _pending[loop]
    return not any(loop is _own_loop or loop.is_running() for loop in _pending)


def _count(loop: asyncio.AbstractEventLoop, change: int) -> None:
    with _settled:
        left = _pending.get(loop, 0) + change
        if left:
            _pending[loop] = left
        else:
            _pending.pop(loop, None)
            _settled.notify_all()


def broadcasting_loop() -> asyncio.AbstractEventLoop:
    global _own_loop
    consumer_loop = _consumer_loop
    if consumer_loop is not None and consumer_loop.is_running():
        return consumer_loop
    with _lock:
        if _own_loop is None or _own_loop.is_closed():
            _own_loop = asyncio.new_event_loop()
            threading.Thread(target=_own_loop.run_forever, name="broadcast", daemon=True).start()
        return _own_loop


async def send(group: str, event_type: str, payload: dict[str, Any]) -> None:
    """On the broadcasting loop: encode once (not once per watcher) and send to the group."""
    event = {"type": event_type, "text": json.dumps(payload)}
    try:
        await asyncio.wait_for(get_channel_layer().group_send(group, event), SEND_TIMEOUT_SECONDS)
    except Exception as error:  # Redis down or slow: the data is safe in PostgreSQL
        count_loss("send")
        log.warning("live push %s to %s lost: %r", event_type, group, error)


async def in_worker_thread(function: Callable[..., T], *args: Any) -> T:
    """Run an ORM read off the loop, on a connection that is closed afterwards."""

    def call() -> T:
        close_old_connections()
        try:
            return function(*args)
        finally:
            connection.close()

    return await sync_to_async(call, thread_sensitive=False)()


async def _guarded(
    make: Callable[[], Coroutine[Any, Any, None]], loop: asyncio.AbstractEventLoop
) -> None:
    try:
        await make()
    except Exception:
        count_loss("push")
        log.exception("live push failed")
    finally:
        _count(loop, -1)
