"""Calls made at the same moment from several threads, for the tests of what two requests
(or two workers) racing each other do."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


def run_in_threads(
    target: Callable[..., object], each: Iterable[tuple[Any, ...]], timeout: float | None = None
) -> None:
    """``target(*args)`` for each ``args`` of ``each``, every call in a thread of its own,
    all started before any is waited for; returns once each has ended or been waited for
    ``timeout`` seconds. What the calls found is the test's to collect (and assert)."""
    threads = [threading.Thread(target=target, args=args) for args in each]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
