"""How promptly the solver keeps a time limit: while ``solve`` works, the real time between two
reads of the searches' clock (games/solver/clock.py, read at each periodic check of every
search and of the improve phase), and how long after its limit ``solve`` returns.

The tests run the searches on a clock that moves only when it is read (tests/conftest.py,
``search_clock``), so that a limit is a number of checks on any machine; how often those
checks come in real time is a speed, measured here.

    python -m bench.clock_reads_bench [--seconds 3] [--deals spider4:12,astrocyte:4]

Each deal is solved with ``--seconds`` and an improve budget no search reaches
(``improve_nodes``), so the work runs up to the limit: the search, then, once the deal is
proven, the improve phase. Printed per deal: the outcome, the clock's reads, the median,
p99 and largest gap between two reads, and how long after the limit ``solve`` returned
(negative: before it; ``solve`` keeps a little time back for the improve phase's end).
Single-threaded: note the load average. Compare the builds with ``ASTROCYTE_NATIVE=0``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from itertools import pairwise
from unittest import mock

from games.engine import native
from games.solver import clock, solve

DEALS = "spider4:12,spider1:3,astrocyte:4,astrocyte:7"
NO_END = 10**9  # an improve budget no search reaches in the time given


class RecordingClock:
    """``time.perf_counter`` for the searches, noting when each read happened."""

    def __init__(self) -> None:
        self.reads: list[float] = []

    def perf_counter(self) -> float:
        now = time.perf_counter()
        self.reads.append(now)
        return now


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * len(ordered)))]


def measure(variant: str, seed: int, seconds: float) -> str:
    recording = RecordingClock()
    with mock.patch.object(clock, "time", recording):  # as the tests' search_clock does
        began = time.perf_counter()
        result = solve((variant, seed), seconds=seconds, improve_nodes=NO_END)
        ended = time.perf_counter()
    reads = recording.reads
    gaps_ms = [1000 * (later - earlier) for earlier, later in pairwise(reads)]
    late_ms = 1000 * (ended - began - seconds)
    return (
        f"{variant}:{seed}: {result.status}, {result.nodes:,} positions, {len(reads):,} reads; "
        f"gap median {statistics.median(gaps_ms):.2f} ms, p99 {percentile(gaps_ms, 0.99):.2f} ms, "
        f"max {max(gaps_ms):.2f} ms; returned {late_ms:+.0f} ms after the limit"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--deals", default=DEALS, help="variant:seed, comma-separated")
    args = parser.parse_args()
    print(f"engine: {native.status()}; limit {args.seconds:g} s")
    for deal in args.deals.split(","):
        variant, seed = deal.split(":")
        print(measure(variant, int(seed), args.seconds), flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
