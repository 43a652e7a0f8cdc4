"""The games app's metrics (docs/metrics.md): actions played, and the deal figures that
live in PostgreSQL, read at scrape time (``DealFigures``) so that they are right whichever
process (web, Celery worker, the embedded verifier) did the work."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Q, Sum
from prometheus_client import Counter, Gauge
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.metrics_core import Metric

from core.metrics import PREFIX
from games.errors import GamesError
from games.models import DailyChallenge, Deal
from games.selectors import utc_today

log = logging.getLogger(__name__)

ACTIONS = Counter(
    f"{PREFIX}_actions",
    "Actions posted to attempts: accepted (stored) or refused (the first action of a batch "
    "the rules or the notation refused), by attempt kind.",
    ["kind", "outcome"],
)
ACTION_BATCHES = Counter(
    f"{PREFIX}_action_batches",
    "Posts of action batches by outcome: accepted, retry (a batch already stored, answered "
    "again), invalid_action, illegal_action, offset_conflict, attempt_over.",
    ["outcome"],
)
REFUSALS = ("invalid_action", "illegal_action")
PLAY_SOCKETS_OPEN = Gauge(
    f"{PREFIX}_play_sockets_open",
    "Play sockets (ws/attempts/<id>/play/) open now.",
    multiprocess_mode="livesum",
)
PLAY_SOCKET_ANSWERS = Counter(
    f"{PREFIX}_play_socket_answers",
    "Answers to action batches sent over play sockets, by the HTTP status they stand for.",
    ["status"],
)


def count_action_batch(*, kind: str, actions: int, outcome: object, retry: bool) -> None:
    """Count one post of ``actions`` actions to an attempt of ``kind``, after its commit."""
    if isinstance(outcome, GamesError):
        ACTION_BATCHES.labels(outcome.code).inc()
        if outcome.code in REFUSALS:
            ACTIONS.labels(kind, "refused").inc()
        return
    ACTION_BATCHES.labels("retry" if retry else "accepted").inc()
    if not retry:
        ACTIONS.labels(kind, "accepted").inc(actions)


# --- figures read from PostgreSQL at scrape time ------------------------------------

FINISHED = (Deal.Status.VERIFIED, Deal.Status.UNSOLVABLE, Deal.Status.UNKNOWN, Deal.Status.FAILED)
# Solver seconds of one verification (SOLVER_SECONDS is 60 by default).
VERIFY_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)


def _bucket(index: int) -> str:
    return f"le_{index}"


def deal_rows() -> list[dict[str, object]]:
    """One row per (pool, variant, status, retired): deals, verification runs started, and
    the solver seconds of the finished verifications, bucketed as the histogram needs."""
    bucket_counts = {
        _bucket(i): Count("pk", filter=Q(solver_seconds__lte=limit))
        for i, limit in enumerate(VERIFY_BUCKETS)
    }
    return list(
        Deal.objects.order_by()
        .values("pool", "variant", "status", "retired")
        .annotate(
            deals=Count("pk"),
            runs=Sum("verify_runs"),
            measured=Count("pk", filter=Q(solver_seconds__isnull=False)),
            seconds=Sum("solver_seconds"),
            **bucket_counts,
        )
    )


def days_unfilled(today: dt.date) -> dict[str, int]:
    """Per daily variant: days of the next DAILY_DAYS_AHEAD (today included) with no daily."""
    dates = [today + dt.timedelta(days=n) for n in range(settings.DAILY_DAYS_AHEAD)]
    filled = set(
        DailyChallenge.objects.filter(
            date__in=dates, variant__in=settings.DAILY_VARIANTS
        ).values_list("date", "variant")
    )
    return {
        variant: sum((date, variant) not in filled for date in dates)
        for variant in settings.DAILY_VARIANTS
    }


class DealFigures:
    """Deals per status, days ahead still unfilled, verification outcomes and durations."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            f"{PREFIX}_database_figures_up",
            "1 when this scrape read the deal figures from the database, 0 when it failed.",
        )
        try:
            rows = deal_rows()
            unfilled = days_unfilled(utc_today())
        except DatabaseError as error:
            log.warning("metrics: deal figures not read from the database: %r", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from self._deals(rows)
        yield from self._verifications(rows)
        gauge = GaugeMetricFamily(
            f"{PREFIX}_daily_days_unfilled",
            "Days of the next DAILY_DAYS_AHEAD (today included) without a verified daily.",
            labels=["variant"],
        )
        for variant, days in unfilled.items():
            gauge.add_metric([variant], days)
        yield gauge

    def _deals(self, rows: list[dict[str, object]]) -> Iterator[Metric]:
        deals = GaugeMetricFamily(
            f"{PREFIX}_deals",
            "Deals in use (not retired) by pool, variant and status.",
            labels=["pool", "variant", "status"],
        )
        for row in rows:
            if not row["retired"]:
                deals.add_metric(
                    [str(row["pool"]), str(row["variant"]), str(row["status"])], _n(row["deals"])
                )
        yield deals

    def _verifications(self, rows: list[dict[str, object]]) -> Iterator[Metric]:
        runs = CounterMetricFamily(
            f"{PREFIX}_deal_verification_runs",
            "Verification runs started (by any worker or the embedded verifier), by variant.",
            labels=["variant"],
        )
        outcomes = GaugeMetricFamily(
            f"{PREFIX}_deal_verification_outcomes",
            "Deals, retired ones too, whose latest verification ended so, by variant.",
            labels=["variant", "outcome"],
        )
        seconds = HistogramMetricFamily(
            f"{PREFIX}_deal_verification_seconds",
            "Solver seconds of the latest verification of each deal, by variant and outcome "
            "(a verification stopped by its time limit records none).",
            labels=["variant", "outcome"],
        )
        run_counts: dict[str, float] = {}
        finished: dict[tuple[str, str], list[float]] = {}
        for row in rows:
            variant, status = str(row["variant"]), str(row["status"])
            run_counts[variant] = run_counts.get(variant, 0.0) + _n(row["runs"])
            if status not in FINISHED:
                continue
            counts = [_n(row["deals"]), _n(row["measured"]), _n(row["seconds"])]
            counts += [_n(row[_bucket(i)]) for i in range(len(VERIFY_BUCKETS))]
            previous = finished.get((variant, status))
            finished[(variant, status)] = (
                counts
                if previous is None
                else [a + b for a, b in zip(previous, counts, strict=True)]
            )
        for variant, total in sorted(run_counts.items()):
            runs.add_metric([variant], total)
        for (variant, status), (deals, measured, total_seconds, *buckets) in sorted(
            finished.items()
        ):
            outcomes.add_metric([variant, status], deals)
            seconds.add_metric(
                [variant, status],
                [(str(limit), count) for limit, count in zip(VERIFY_BUCKETS, buckets, strict=True)]
                + [("+Inf", measured)],
                sum_value=total_seconds,
            )
        yield runs
        yield outcomes
        yield seconds


def _n(value: object) -> float:
    return float(value or 0)  # type: ignore[arg-type]
