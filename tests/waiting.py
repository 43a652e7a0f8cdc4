"""One way for a test to wait on something another thread or process does: poll for the
event itself, with a deadline that only a broken product reaches, never a fixed sleep."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(check: Callable[[], T | None], timeout: float, what: str, every: float = 0.05) -> T:
    """Poll ``check`` until it returns something truthy, and return that; fail, naming
    ``what``, after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(every)


async def until(
    check: Callable[[], bool | Awaitable[bool]], timeout: float, what: str, every: float = 0.01
) -> None:
    """On an event loop: poll ``check`` (awaited when it returns an awaitable) until it
    holds, yielding to the loop between looks; fail, naming ``what``, after ``timeout``
    seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        held = check()
        if await held if inspect.isawaitable(held) else held:
            return
        if loop.time() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(every)
