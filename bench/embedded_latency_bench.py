"""What the embedded beat's background verifier costs the requests of the embedded run.

    .venv/bin/python -m bench.embedded_latency_bench [--requests 300]

Starts ``scripts/dev.py run`` twice on a fresh SQLite file with today's daily
prepared: once with nothing left to verify (``DAILY_DAYS_AHEAD=1``, ``PRACTICE_POOL_SIZE=0``:
the verifier idles), once with the defaults (seven days, practice pools of 50 for four
variants: the verifier proves deals the whole time). Each time it sends ``--requests``
``GET /api/v1/challenges/today/`` one after the other (one player, as on a laptop) and
reports the median, p90 and p99 times; the solver's pure-Python search shares the
interpreter lock with the request threads.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench import midnight_bench as midnight


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(idle: bool, requests: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="astrocyte-latency-") as folder:
        database = Path(folder) / "db.sqlite3"
        midnight.prepare("late", database)  # today's daily only
        extra = {"DAILY_DAYS_AHEAD": "1", "PRACTICE_POOL_SIZE": "0"} if idle else {}
        port = midnight.free_port()
        server, _clock = midnight.start(database, port, -3600.0, extra)
        try:
            url = f"http://127.0.0.1:{port}/api/v1/challenges/today/"
            time.sleep(5)  # the start-up round: the verifier is at work (or idle) by now
            took = []
            for _ in range(requests):
                started = time.perf_counter()
                midnight.http(url)
                took.append((time.perf_counter() - started) * 1000)
        finally:
            midnight.stop_server(server)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    for idle in (True, False):
        took = measure(idle, args.requests)
        label = "verifier idle" if idle else "verifier busy"
        print(
            f"{label}: {len(took)} requests, median {statistics.median(took):.1f} ms, "
            f"p90 {percentile(took, 0.9):.1f} ms, p99 {percentile(took, 0.99):.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
