"""The verification pipeline with a real Celery worker, Redis broker and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from config.celery import app
from games import engine
from games.models import DailyChallenge, Deal
from games.services.deals import deal_create
from games.tasks import dailies_prepare_task, deal_verify_task
from tests.celery_worker import CeleryWorker, app_served_by_a_worker, start_celery_worker
from tests.games.conftest import (
    QUICK_DRAW_LIMITS,
    QUICK_LONG_SEED,
    QUICK_SEEDS,
    QUICK_VARIANT,
    SLOW_SEED,
)
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.celery,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]


def test_a_worker_verifies_a_deal_end_to_end(celery_worker: CeleryWorker) -> None:
    deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_LONG_SEED)
    status = deal_verify_task.delay(deal.pk).get(timeout=celery_worker.timeout)
    assert status == "verified"
    deal.refresh_from_db()
    assert deal.status == Deal.Status.VERIFIED
    assert engine.replay(QUICK_VARIANT, deal.seed_int, deal.solution or []).won
    assert f"deal {deal.pk}" in celery_worker.log()
    assert str(deal.seed_int) not in celery_worker.log(), "a seed must never reach the logs"


def test_a_worker_stops_at_its_position_limit_with_time_to_spare(
    django_db_blocker: Any, tmp_path: Path
) -> None:
    # Ten minutes on the worker's clock: the SOLVER_NODES of its environment stops the search.
    limits = {"SOLVER_SECONDS": "600", "SOLVER_NODES": "200"}
    with app_served_by_a_worker(django_db_blocker, tmp_path, limits) as worker:
        deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_LONG_SEED)
        assert deal_verify_task.delay(deal.pk).get(timeout=worker.timeout) == "unknown"
        deal.refresh_from_db()
        assert deal.last_error.startswith("not proven: the search stopped at its node limit")
        assert deal.solver_nodes is not None and 200 <= deal.solver_nodes < 400
        assert re.search(rf"deal {deal.pk} unknown .*node limit", worker.log())


def test_running_the_same_task_twice_verifies_once(celery_worker: CeleryWorker) -> None:
    deal = deal_create(variant="spider1", seed=QUICK_SEEDS["spider1"])
    first = deal_verify_task.delay(deal.pk)
    second = deal_verify_task.delay(deal.pk)
    assert first.get(timeout=celery_worker.timeout) == "verified"
    assert second.get(timeout=celery_worker.timeout) == "verified"
    deal.refresh_from_db()
    assert deal.verify_runs == 1


def test_a_deal_left_by_a_killed_worker_is_verified_by_another(tmp_path: Path) -> None:
    # Short lease and visibility timeout so that the takeover happens within the test.
    fast_recovery = {
        "DEAL_VERIFY_HARD_LIMIT": "1",
        "DEAL_VERIFY_LEASE_MARGIN": "0",
        "CELERY_VISIBILITY_TIMEOUT": "2",
        "CELERY_RESTORE_INTERVAL": "1",
        "CELERY_RESTORE_THROTTLE": "1",
    }
    first = start_celery_worker(tmp_path, extra_env=fast_recovery)
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    second = None
    try:
        deal = deal_create(variant=SLOW_SEED[0], seed=SLOW_SEED[1])
        deal_verify_task.apply_async((deal.pk,), queue=first.queue)
        wait_for(
            lambda: Deal.objects.get(pk=deal.pk).status == Deal.Status.VERIFYING,
            60,
            "the solve to start",
        )
        first.process.kill()
        first.process.wait(timeout=10)
        assert Deal.objects.get(pk=deal.pk).status == Deal.Status.VERIFYING
        second = start_celery_worker(tmp_path, queue=first.queue, extra_env=fast_recovery)
        in_flight = (Deal.Status.PENDING, Deal.Status.VERIFYING)
        wait_for(lambda: Deal.objects.get(pk=deal.pk).status not in in_flight, 120, "the takeover")
        deal.refresh_from_db()
        assert deal.status == Deal.Status.VERIFIED, deal.last_error
        assert deal.verify_runs == 2
        assert "taking over" in second.log()
        assert engine.replay(deal.variant, deal.seed_int, deal.solution or []).won
    finally:
        app.conf.task_always_eager = saved
        first.stop()
        if second is not None:
            second.stop()


def test_the_beat_task_fills_the_week_and_the_practice_pool(tmp_path: Path) -> None:
    env = {
        "DAILY_VARIANTS": QUICK_VARIANT,
        "DAILY_DAYS_AHEAD": "7",
        "PRACTICE_POOL_SIZE": "2",
        "PRACTICE_VARIANTS": QUICK_VARIANT,
        **QUICK_DRAW_LIMITS,
    }
    worker = start_celery_worker(tmp_path, extra_env=env)
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    practice = Deal.objects.filter(pool=Deal.Pool.PRACTICE, status=Deal.Status.VERIFIED)
    try:

        def beat() -> None:
            dailies_prepare_task.apply_async(queue=worker.queue).get(timeout=60)

        # The first run draws candidates and queues them; verified dailies are scheduled as they
        # finish; a later run (the beat) replaces any candidate that came back unsolved.
        beat()

        def filled() -> bool:
            if DailyChallenge.objects.count() >= 7 and practice.count() >= 2:
                return True
            in_flight = [Deal.Status.PENDING, Deal.Status.VERIFYING]
            if not Deal.objects.filter(status__in=in_flight).exists():
                beat()
            return False

        wait_for(filled, 300, "seven verified dailies and two practice deals")
        dailies = DailyChallenge.objects.select_related("deal")
        today = timezone.now().date()
        assert sorted(d.date for d in dailies) == [today + dt.timedelta(days=n) for n in range(7)]
        assert all(d.variant == QUICK_VARIANT for d in dailies)
        assert all(d.deal.status == Deal.Status.VERIFIED for d in dailies)
        assert all(d.deal.pool == Deal.Pool.DAILY for d in dailies)
        assert not practice.filter(dailies__isnull=False).exists()
        beat()  # a full schedule: nothing new is drawn
        assert DailyChallenge.objects.count() == 7
    finally:
        app.conf.task_always_eager = saved
        worker.stop()
