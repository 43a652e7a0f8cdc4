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
from typing import Any

import time_machine

SHIFT_VARIABLE = "TEST_CLOCK_SHIFT"


def shift_to(moment: dt.datetime) -> float:
    """The shift that makes the clock read ``moment`` now."""
    return moment.timestamp() - time.time()


def shifted_clock(shift: float) -> Any:
    """A context manager (time-machine's traveller): this process's clock, shifted."""
    return time_machine.travel(time.time() + shift, tick=True)


def shift_from_environment() -> None:
    """Shift this process's clock for good when ``TEST_CLOCK_SHIFT`` is set."""
    shift = float(os.environ.get(SHIFT_VARIABLE) or 0)
    if shift:
        shifted_clock(shift).start()
