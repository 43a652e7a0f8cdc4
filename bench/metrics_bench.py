"""What the metrics cost (docs/metrics.md): one scrape, and one request's bookkeeping.

Run from the repository root, with PostgreSQL as in CI::

    .venv/bin/python -m bench.metrics_bench \
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench_metrics

The database named in the URL is the benchmark's own (created and migrated if missing,
refilled with ``--refill``). It holds ``--deals`` deals across the variants, pools and
statuses (solver seconds drawn from a fixed seed) and a week of dailies. Figures:

- a scrape: ``core.metrics.exposition()`` as ``/metrics/`` calls it (the processes'
  metrics and the deal figures read from PostgreSQL), median and p99 of ``--runs``;
- a request's bookkeeping: one ``observe`` of the latency histogram, as the middleware
  does per request, in one process's memory and in multiprocess mode
  (``PROMETHEUS_MULTIPROC_DIR``: memory-mapped files), mean of 100,000 calls.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.leaderboard_bench import ensure_database, setup_django

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261201
OBSERVE_CALLS = 100_000
OBSERVE = f"""
import time
from core.request_metrics import HTTP_REQUEST_SECONDS
child = HTTP_REQUEST_SECONDS.labels("POST", "api/v1/attempts/<int:attempt_id>/actions/", "200")
started = time.perf_counter()
for _ in range({OBSERVE_CALLS}):
    child.observe(0.004)
print((time.perf_counter() - started) / {OBSERVE_CALLS} * 1e6)
"""


def fill(deals: int) -> None:
    import datetime as dt

    from django.utils import timezone

    from games.engine import VARIANTS
    from games.models import DailyChallenge, Deal, commitment_for

    if Deal.objects.count() >= deals:
        return
    draw = random.Random(SEED)
    statuses = [s for s, _ in Deal.Status.choices]
    rows = []
    for n in range(deals):
        variant = list(VARIANTS)[n % len(VARIANTS)]
        nonce = secrets.token_hex(16)
        status = draw.choices(statuses, weights=[2, 1, 80, 5, 10, 2])[0]
        finished = status not in (Deal.Status.PENDING, Deal.Status.VERIFYING)
        rows.append(
            Deal(
                variant=variant,
                seed=str(n + 1),
                nonce=nonce,
                commitment=commitment_for(variant, n + 1, nonce),
                pool=Deal.Pool.DAILY if n % 10 == 0 else Deal.Pool.PRACTICE,
                rules_version=1,
                status=status,
                verify_runs=1 if status != Deal.Status.PENDING else 0,
                solver_seconds=draw.expovariate(1 / 3.0) if finished else None,
            )
        )
    Deal.objects.bulk_create(rows, batch_size=2000)
    today = timezone.now().date()
    daily = Deal.objects.filter(pool=Deal.Pool.DAILY, status=Deal.Status.VERIFIED)
    for n, deal in enumerate(daily.filter(variant="astrocyte")[:5]):
        DailyChallenge.objects.get_or_create(
            date=today + dt.timedelta(days=n), variant="astrocyte", defaults={"deal": deal}
        )


def scrape_ms(runs: int) -> list[float]:
    from core.metrics import exposition  # (the deal figures: registered by the games app)

    exposition()  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        exposition()
        times.append((time.perf_counter() - started) * 1000)
    return times


def observe_us(multiprocess: bool) -> float:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with tempfile.TemporaryDirectory(prefix="astrocyte-metrics-bench-") as folder:
        if multiprocess:
            env["PROMETHEUS_MULTIPROC_DIR"] = folder
        done = subprocess.run(
            [sys.executable, "-c", OBSERVE], cwd=ROOT, env=env, capture_output=True, text=True
        )
    if done.returncode != 0:
        sys.exit(done.stderr)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--refill", action="store_true")
    args = parser.parse_args()
    ensure_database(args.database_url, args.refill)
    setup_django(args.database_url)
    fill(args.deals)
    times = sorted(scrape_ms(args.runs))
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"deals in the database: {args.deals}; scrapes: {args.runs}")
    print(f"scrape: median {statistics.median(times):.1f} ms, p99 {p99:.1f} ms")
    print(f"observe, one process: {observe_us(False):.2f} µs per request")
    print(f"observe, multiprocess mode: {observe_us(True):.2f} µs per request")


if __name__ == "__main__":
    main()
