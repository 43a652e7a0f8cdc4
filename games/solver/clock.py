"""The searches' clock: interpreted Python on purpose, never compiled (not in native.MODULES).

Code compiled by mypyc never runs the interpreter's loop, and only that loop hands the
interpreter lock to another thread that asks for it (or handles a signal such as Ctrl-C).
A compiled search would keep the lock from its first position to its last: in the embedded
run the verifier shares the process with the request threads, and no request was answered
while it worked. Every search reads the clock at its periodic checks (every few
milliseconds) through :func:`now`; a call into this module runs the interpreter's loop once,
which gives the lock away if a thread is waiting for it. The expander, and the complete
search of a proof of loss (which has no clock), also call :func:`offer_lock` once a position
they expand (about every 0.1 ms compiled): a request thread waits for the lock that long,
not a whole clock period, each time it needs it.
"""

from __future__ import annotations

import time


def now() -> float:
    """``time.perf_counter()``, through the interpreter (see above)."""
    return time.perf_counter()


def offer_lock() -> None:
    """Nothing, through the interpreter: a thread waiting for the lock gets it here."""
