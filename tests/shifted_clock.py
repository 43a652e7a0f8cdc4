"""A wall clock shifted by a fixed number of seconds, shared by the test process and the
server or worker processes it starts (time-machine, ticking in real time).

A subprocess started with ``TEST_CLOCK_SHIFT=<seconds>`` and the settings
``tests.clock_settings`` (or ``tests.frontend.clock_server_settings``) reads
``real time + shift`` from ``time.time()``, ``datetime.now()`` and friends; the test
process enters the same shift with ``shifted_clock(shift)``. So every process sees the
same moment, say 23:59:40 of a chosen day, and midnight comes for all of them at once.
Monotonic clocks (timeouts, sleeps) are left alone.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import time_machine

SHIFT_VARIABLE = "TEST_CLOCK_SHIFT"


def shift_to(moment: dt.datetime) -> float:
    """The shift that makes the clock read ``moment`` now."""
    return moment.timestamp() - time.time()


@contextmanager
def shifted_clock(shift: float) -> Iterator[Any]:
    """This process's clock, shifted, for the ``with`` block."""
    travel = start_shifted_clock(shift)
    try:
        yield travel
    finally:
        travel.stop()


def start_shifted_clock(shift: float) -> Any:
    """Start the shift; returns time-machine's ``travel`` (``stop()`` ends it)."""
    travel = time_machine.travel(time.time() + shift, tick=True)
    travel.start()
    # A ticking time-machine clock starts ticking when it is first read, not when started:
    # read it now, or it would lag behind the other processes' by however long that takes.
    time.time()
    return travel


def shift_from_environment() -> None:
    """Shift this process's clock for good when ``TEST_CLOCK_SHIFT`` is set."""
    shift = float(os.environ.get(SHIFT_VARIABLE) or 0)
    if shift:
        start_shifted_clock(shift)
