"""Start a coroutine at once, in the caller's turn of the loop; a task only if it must wait.

The same thing as Python 3.12's eager tasks (``asyncio.eager_task_factory``), for one
call site on Python 3.11: fanning a board out to thousands of sockets, nearly every send
completes without waiting (the socket's buffer has room), and creating and scheduling a
task for each cost about as much as the send itself (docs/scaling.md). The coroutine runs
in a copy of the current context, as a task's would; if it waits, a task carries it on
from there, in that same context, so it behaves as if it had been a task all along
(cancelling the task cancels what it waits on).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any


def start_eagerly(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coroutine`` now until it ends (None) or first waits (the task that goes on).
    An exception it raises before it first waits is raised here."""
    context = contextvars.copy_context()
    try:
        waiting_on = context.run(coroutine.send, None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_carry_on(coroutine, waiting_on), context=context)


async def _carry_on(coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> None:
    while True:
        # The coroutine waits on ``waiting_on`` (a future, or None after a bare yield such
        # as asyncio.sleep(0)): wait for it here, then resume the coroutine, which reads the
        # future's result or exception itself, as under a task of its own.
        if waiting_on is not None:
            # As a task does with what its coroutine yields: the flag that says "a future
            # the coroutine waits on" is taken off before the future is awaited again.
            waiting_on._asyncio_future_blocking = False
        try:
            await (asyncio.sleep(0) if waiting_on is None else waiting_on)
        except asyncio.CancelledError as error:
            if waiting_on is None or not waiting_on.cancelled():
                # This task was cancelled, not the future: the coroutine is told so.
                try:
                    waiting_on = coroutine.throw(error)
                except StopIteration:
                    return
                continue
        except BaseException:  # the future's own exception: the coroutine reads it
            pass
        try:
            waiting_on = coroutine.send(None)
        except StopIteration:
            return
