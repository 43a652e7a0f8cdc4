"""Picking a practice-pool deal for a practice attempt or a race, and keeping a race's deal
its own while the race runs.

A deal in a running race (one of its attempts still ``cards_sealed``) is a secret of that
race: served to no one else until the race is over for every racer. A practice start and a
race start may pick the same deal at the same moment, so each takes the deal's row lock
and then asks the database again, in a statement of its own (on PostgreSQL a new snapshot,
which sees whatever the other committed while it waited for the lock; SQLite's immediate
transactions let only one writer in at a time): a practice start takes the deal only if no
race holds it, a race only if no one else has it open in practice. The loser picks again.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from games.errors import NoPracticeDealError
from games.models import Attempt, Deal
from games.selectors import deal_in_race, in_race_attempts

PICKS = 5  # a pick that loses the deal to a simultaneous start picks again, this often


def _pool(variant: str | None) -> QuerySet[Deal]:
    # Never a daily's deal (deal_schedule refuses practice deals; this holds it both ways),
    # never a running race's.
    deals = Deal.objects.filter(
        pool=Deal.Pool.PRACTICE, status=Deal.Status.VERIFIED, retired=False, dailies__isnull=True
    ).exclude(Exists(in_race_attempts().filter(deal=OuterRef("pk"))))
    return deals.filter(variant=variant) if variant else deals


def _random(deals: QuerySet[Deal], refusal: str) -> Deal:
    count = deals.count()
    if count == 0:
        raise NoPracticeDealError(refusal)
    return deals.order_by("pk")[secrets.randbelow(count)]


def _locked(deal: Deal) -> None:
    """Hold the deal's row until the transaction ends (a simultaneous start waits)."""
    list(Deal.objects.select_for_update().filter(pk=deal.pk).values_list("pk", flat=True))


def practice_deal_claim(*, variant: str | None = None) -> Deal:
    """A random verified deal of the practice pool (of ``variant``) that no running race
    holds, its row locked: call inside the transaction that creates the attempt."""
    which = f" of {variant}" if variant else ""
    refusal = f"No verified practice deal{which} is free yet; try again soon."
    for _ in range(PICKS):
        deal = _random(_pool(variant), refusal)
        _locked(deal)
        if not deal_in_race(deal.pk):
            return deal
    raise NoPracticeDealError(refusal)


def race_deal_claim(*, variant: str, racers: list[Any]) -> Deal:
    """A random verified practice deal of ``variant`` that none of ``racers`` has played,
    that no one has open in practice and no other race holds (one nobody has played at all
    when there is one), its row locked: call inside the transaction that creates the race's
    sealed attempts."""
    refusal = (
        f"No verified practice deal of {variant} that none of these players has played "
        "is free yet; try again soon."
    )
    open_attempts = Attempt.objects.filter(deal=OuterRef("pk"), ended_at__isnull=True)
    any_attempt = Attempt.objects.filter(deal=OuterRef("pk"))
    for _ in range(PICKS):
        deals = _pool(variant).exclude(attempts__player__in=racers).exclude(Exists(open_attempts))
        # A deal nobody has played first: someone outside the race who saw one whole in
        # practice (a racer's second account) would know it from the start.
        unseen = deals.exclude(Exists(any_attempt))
        deal = _random(unseen if unseen.exists() else deals, refusal)
        _locked(deal)
        taken = Attempt.objects.filter(deal=deal, ended_at__isnull=True).exists()
        if not taken and not deal_in_race(deal.pk):
            return deal
    raise NoPracticeDealError(refusal)
