"""Keep the next days' dailies and the practice pool filled with verified deals."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import DailyChallenge, Deal
from games.selectors import in_race_attempts
from games.services.deals import deal_create

log = logging.getLogger(__name__)

IN_FLIGHT = (Deal.Status.PENDING, Deal.Status.VERIFYING)

Enqueue = Callable[[int], None]


@dataclass
class PrepareReport:
    scheduled: list[tuple[dt.date, str]] = field(default_factory=list)
    missing: list[tuple[dt.date, str]] = field(default_factory=list)
    created: int = 0
    enqueued: int = 0
    released: int = 0

    def summary(self) -> str:
        return (
            f"scheduled {len(self.scheduled)}, still missing {len(self.missing)}, "
            f"new candidates {self.created}, verifications queued {self.enqueued}, "
            f"stale verifications released {self.released}"
        )


def dates_ahead(today: dt.date, days: int) -> list[dt.date]:
    return [today + dt.timedelta(days=n) for n in range(days)]


def release_stale_verifications(*, now: dt.datetime | None = None) -> list[int]:
    """Deals left 'verifying' by a worker that died: back to pending, to be verified again."""
    now = now or timezone.now()
    stale = list(
        Deal.objects.filter(status=Deal.Status.VERIFYING, lease_until__lt=now).values_list(
            "pk", flat=True
        )
    )
    if stale:
        Deal.objects.filter(pk__in=stale, status=Deal.Status.VERIFYING, lease_until__lt=now).update(
            status=Deal.Status.PENDING, lease_until=None
        )
        log.warning("released %s stale verification(s): deals %s", len(stale), stale)
    return stale


def dailies_schedule_verified(
    *, today: dt.date | None = None, days: int | None = None, variants: Iterable[str] | None = None
) -> tuple[list[tuple[dt.date, str]], list[tuple[dt.date, str]]]:
    """Give every empty (date, variant) slot a verified, unused daily-pool deal.

    Returns (scheduled, still missing).
    """
    today = today or timezone.now().date()
    days = settings.DAILY_DAYS_AHEAD if days is None else days
    variants = list(settings.DAILY_VARIANTS if variants is None else variants)
    taken = set(
        DailyChallenge.objects.filter(
            date__in=dates_ahead(today, days), variant__in=variants
        ).values_list("date", "variant")
    )
    scheduled: list[tuple[dt.date, str]] = []
    missing: list[tuple[dt.date, str]] = []
    for date in dates_ahead(today, days):
        for variant in variants:
            if (date, variant) in taken:
                continue
            if _fill_slot(date, variant):
                scheduled.append((date, variant))
            else:
                missing.append((date, variant))
    return scheduled, missing


def _fill_slot(date: dt.date, variant: str) -> bool:
    try:
        with transaction.atomic():
            deal = (
                Deal.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(
                    variant=variant,
                    pool=Deal.Pool.DAILY,
                    status=Deal.Status.VERIFIED,
                    retired=False,
                )
                .filter(dailies__isnull=True)
                .order_by("verified_at", "pk")
                .first()
            )
            if deal is None:
                return False
            DailyChallenge.objects.create(date=date, variant=variant, deal=deal)
    except IntegrityError:
        # Another process filled this slot (or took this deal) first: the slot is filled.
        return DailyChallenge.objects.filter(date=date, variant=variant).exists()
    log.info("daily %s %s: deal %s", date, variant, deal.pk)
    return True


def _top_up(variant: str, pool: str, wanted: int, enqueue: Enqueue, report: PrepareReport) -> None:
    """Ensure ``wanted`` candidates of (variant, pool) are pending or verifying, all queued."""
    in_flight = list(
        Deal.objects.filter(variant=variant, pool=pool, status__in=IN_FLIGHT, retired=False)
        .order_by("pk")
        .values_list("pk", "status")
    )
    for _ in range(max(0, wanted - len(in_flight))):
        deal = deal_create(variant=variant, pool=pool)
        in_flight.append((deal.pk, Deal.Status.PENDING))
        report.created += 1
    # Pending ones are (re)queued every time: a lost message must not strand a deal, and a
    # duplicate is harmless because verification is idempotent.
    for pk, status in in_flight:
        if status == Deal.Status.PENDING:
            enqueue(pk)
            report.enqueued += 1


def dailies_prepare(
    *,
    enqueue: Enqueue,
    today: dt.date | None = None,
    days: int | None = None,
    variants: Iterable[str] | None = None,
    practice_size: int | None = None,
    max_rounds: int = 1,
) -> PrepareReport:
    """Fill the next ``days`` dailies of each variant and the practice pools.

    ``enqueue(deal_id)`` starts a verification: a Celery ``delay`` with workers, or a direct
    call in-process. With direct calls, ``max_rounds`` > 1 lets this retry new candidates
    when some come back unsolvable or unknown.
    """
    today = today or timezone.now().date()
    days = settings.DAILY_DAYS_AHEAD if days is None else days
    variants = list(settings.DAILY_VARIANTS if variants is None else variants)
    practice_size = settings.PRACTICE_POOL_SIZE if practice_size is None else practice_size
    report = PrepareReport()
    queued: set[int] = set()

    def enqueue_once(deal_id: int) -> None:
        queued.add(deal_id)
        enqueue(deal_id)

    report.released = len(release_stale_verifications())
    for _ in range(max(1, max_rounds)):
        scheduled, missing = dailies_schedule_verified(today=today, days=days, variants=variants)
        report.scheduled += scheduled
        report.missing = missing
        if not missing:
            break
        per_variant: dict[str, int] = {}
        for _date, variant in missing:
            per_variant[variant] = per_variant.get(variant, 0) + 1
        for variant, count in per_variant.items():
            _top_up(variant, Deal.Pool.DAILY, count, enqueue_once, report)
    else:
        scheduled, report.missing = dailies_schedule_verified(
            today=today, days=days, variants=variants
        )
        report.scheduled += scheduled
    for variant in settings.PRACTICE_VARIANTS:
        for _ in range(max(1, max_rounds)):
            # A deal in a running race serves no one else until the race is over: the pool
            # is kept full of deals free to deal.
            verified = (
                Deal.objects.filter(
                    variant=variant,
                    pool=Deal.Pool.PRACTICE,
                    status=Deal.Status.VERIFIED,
                    retired=False,
                )
                .exclude(Exists(in_race_attempts().filter(deal=OuterRef("pk"))))
                .count()
            )
            if verified >= practice_size:
                break
            _top_up(variant, Deal.Pool.PRACTICE, practice_size - verified, enqueue_once, report)
    # Nothing stays pending without a queued verification: a deal released from a dead
    # worker's lease, or whose message was lost, is queued again even when its pool or
    # schedule is full (verification is idempotent; the verified deal waits its turn).
    for pk in Deal.objects.filter(status=Deal.Status.PENDING, retired=False).values_list(
        "pk", flat=True
    ):
        if pk not in queued:
            enqueue_once(pk)
            report.enqueued += 1
    log.info("dailies prepared: %s", report.summary())
    return report
