"""Keeping the schedule and the practice pools filled, and the operators' scheduling rules."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.errors import DealStateError
from games.models import DailyChallenge, Deal
from games.services.dailies import dailies_prepare, release_stale_verifications
from games.services.deals import deal_create, deal_retire, deal_schedule, deal_verify
from tests.games.conftest import OTHER_QUICK_SEED, QUICK_SEEDS, QUICK_VARIANT

pytestmark = pytest.mark.django_db


def verify_here(deal_id: int) -> None:
    deal_verify(deal_id=deal_id, seconds=20)


def test_prepare_fills_every_day_ahead_and_the_practice_pool(settings: object) -> None:
    settings.PRACTICE_VARIANTS = ["spider1"]  # type: ignore[attr-defined]
    today = timezone.now().date()
    report = dailies_prepare(
        enqueue=verify_here,
        today=today,
        days=3,
        variants=[QUICK_VARIANT],
        practice_size=2,
        max_rounds=10,
    )
    assert report.missing == []
    dailies = DailyChallenge.objects.filter(variant=QUICK_VARIANT).order_by("date")
    assert [d.date for d in dailies] == [today + dt.timedelta(days=n) for n in range(3)]
    assert all(
        d.deal.status == Deal.Status.VERIFIED and d.deal.pool == Deal.Pool.DAILY for d in dailies
    )
    assert len({d.deal_id for d in dailies}) == 3
    practice = Deal.objects.filter(
        pool=Deal.Pool.PRACTICE, variant="spider1", status=Deal.Status.VERIFIED
    )
    assert practice.count() >= 2
    assert not practice.filter(dailies__isnull=False).exists()


def test_prepare_again_changes_nothing_when_full(settings: object) -> None:
    settings.PRACTICE_VARIANTS = []  # type: ignore[attr-defined]
    today = timezone.now().date()
    dailies_prepare(
        enqueue=verify_here, today=today, days=2, variants=[QUICK_VARIANT], max_rounds=10
    )
    before = list(DailyChallenge.objects.values_list("date", "deal_id"))
    deals = Deal.objects.count()
    report = dailies_prepare(enqueue=verify_here, today=today, days=2, variants=[QUICK_VARIANT])
    assert report.created == 0 and report.scheduled == []
    assert list(DailyChallenge.objects.values_list("date", "deal_id")) == before
    assert Deal.objects.count() == deals


def test_prepare_with_workers_only_queues_and_does_not_duplicate_candidates(
    settings: object,
) -> None:
    settings.PRACTICE_VARIANTS = []  # type: ignore[attr-defined]
    queued: list[int] = []
    first = dailies_prepare(enqueue=queued.append, days=3, variants=[QUICK_VARIANT])
    assert first.created == 3 and len(first.missing) == 3
    second = dailies_prepare(enqueue=queued.append, days=3, variants=[QUICK_VARIANT])
    assert second.created == 0, "candidates already pending are not drawn again"
    assert len(queued) == 6 and set(queued) == set(Deal.objects.values_list("pk", flat=True))


def test_unsolved_candidates_are_replaced_by_new_ones(settings: object) -> None:
    settings.PRACTICE_VARIANTS = []  # type: ignore[attr-defined]

    def gives_up(deal_id: int) -> None:
        if Deal.objects.filter(status=Deal.Status.UNKNOWN).count() < 2:
            deal_verify(deal_id=deal_id, seconds=0.0)  # the limit is hit at once: unknown
        else:
            verify_here(deal_id)

    report = dailies_prepare(enqueue=gives_up, days=1, variants=[QUICK_VARIANT], max_rounds=5)
    assert report.missing == []
    assert Deal.objects.filter(status=Deal.Status.UNKNOWN).count() == 2
    assert DailyChallenge.objects.get().deal.status == Deal.Status.VERIFIED


def test_stale_verifications_are_released_to_pending() -> None:
    deal = deal_create(variant="astrocyte")
    Deal.objects.filter(pk=deal.pk).update(
        status=Deal.Status.VERIFYING, lease_until=timezone.now() - dt.timedelta(seconds=5)
    )
    live = deal_create(variant="astrocyte")
    Deal.objects.filter(pk=live.pk).update(
        status=Deal.Status.VERIFYING, lease_until=timezone.now() + dt.timedelta(minutes=5)
    )
    assert release_stale_verifications() == [deal.pk]
    assert Deal.objects.get(pk=deal.pk).status == Deal.Status.PENDING
    assert Deal.objects.get(pk=live.pk).status == Deal.Status.VERIFYING


def test_a_released_verification_is_queued_again_even_when_every_pool_is_full(
    settings: object,
) -> None:
    """A worker killed mid-verification left its deal pending for ever: beat released it,
    but queued nothing, because the practice pool was full."""
    settings.PRACTICE_VARIANTS = ["spider1"]  # type: ignore[attr-defined]
    stranded = deal_create(variant="spider1", pool=Deal.Pool.PRACTICE)
    Deal.objects.filter(pk=stranded.pk).update(
        status=Deal.Status.VERIFYING, lease_until=timezone.now() - dt.timedelta(seconds=5)
    )
    queued: list[int] = []
    report = dailies_prepare(enqueue=queued.append, days=0, practice_size=0)
    assert report.released == 1
    assert Deal.objects.get(pk=stranded.pk).status == Deal.Status.PENDING
    assert queued == [stranded.pk]
    # Run again (the message was lost, say): queued again, once.
    queued.clear()
    dailies_prepare(enqueue=queued.append, days=0, practice_size=0)
    assert queued == [stranded.pk]


def _verified(variant: str = QUICK_VARIANT) -> Deal:
    return deal_verify(
        deal_id=deal_create(variant=variant, seed=QUICK_SEEDS[variant]).pk, seconds=20
    )


def test_only_verified_deals_can_be_scheduled() -> None:
    pending = deal_create(variant="astrocyte")
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    with pytest.raises(DealStateError, match="only verified deals"):
        deal_schedule(deal=pending, date=tomorrow)
    daily = deal_schedule(deal=_verified(), date=tomorrow)
    assert daily.variant == QUICK_VARIANT and daily.date == tomorrow


def test_a_day_holds_one_daily_per_variant_and_a_deal_is_used_once() -> None:
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    deal = _verified()
    deal_schedule(deal=deal, date=tomorrow)
    with pytest.raises(DealStateError, match="already scheduled"):
        deal_schedule(deal=deal, date=tomorrow + dt.timedelta(days=1))
    other = deal_verify(deal_id=deal_create(variant=QUICK_VARIANT, seed=OTHER_QUICK_SEED).pk)
    with pytest.raises(DealStateError, match=f"already has a {QUICK_VARIANT} daily"):
        deal_schedule(deal=other, date=tomorrow)
    with pytest.raises(DealStateError, match="in the past"):
        deal_schedule(deal=_verified("spider2"), date=timezone.now().date() - dt.timedelta(days=1))


def test_retiring_a_future_daily_frees_its_day_and_a_started_one_is_refused() -> None:
    today = timezone.now().date()
    future = _verified()
    deal_schedule(deal=future, date=today + dt.timedelta(days=3))
    deal_retire(deal=future)
    assert Deal.objects.get(pk=future.pk).retired
    assert not DailyChallenge.objects.filter(date=today + dt.timedelta(days=3)).exists()
    current = _verified("spider2")
    deal_schedule(deal=current, date=today)
    with pytest.raises(DealStateError, match="has started"):
        deal_retire(deal=current)
    assert not Deal.objects.get(pk=current.pk).retired
