"""Celery tasks of the games app. Tasks take ids, call a service, and are safe to run twice."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from games.models import Attempt
from games.services.analysis import ANALYSIS_TASK, analysis_run
from games.services.attempts import attempts_close_day
from games.services.dailies import dailies_prepare, dailies_schedule_verified
from games.services.deals import deal_mark_unknown, deal_verify, progress_logger
from games.services.hints import HINT_TASK, position_hint

log = logging.getLogger(__name__)


@shared_task(name="games.ping")
def ping() -> str:
    """A no-op round trip through the broker and a worker: for health checks and tests."""
    return "pong"


@shared_task(
    name="games.deal_verify",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.DEAL_VERIFY_SOFT_LIMIT,
    time_limit=settings.DEAL_VERIFY_HARD_LIMIT,
)
def deal_verify_task(deal_id: int, force: bool = False) -> str:
    """Verify one deal; schedule it at once if it is a daily candidate that proved winnable."""
    try:
        deal = deal_verify(deal_id=deal_id, force=force, progress=progress_logger(deal_id))
    except SoftTimeLimitExceeded:
        deal = deal_mark_unknown(deal_id=deal_id, reason="the verification hit its time limit")
    if deal.status == deal.Status.VERIFIED and deal.pool == deal.Pool.DAILY:
        dailies_schedule_verified()
    return str(deal.status)


def enqueue_verification(deal_id: int, force: bool = False) -> None:
    """Queue a deal's verification: for a worker; in the embedded run (tasks eager), for its
    background verifier when it runs, so that no request waits for a solver run."""
    from games import background_verifier

    verifier = background_verifier.running
    if settings.CELERY_TASK_ALWAYS_EAGER and verifier is not None:
        verifier.submit(deal_id, force=force)
    else:
        deal_verify_task.delay(deal_id, force=force)


@shared_task(
    name=HINT_TASK,
    soft_time_limit=int(settings.HINT_SECONDS) + 30,
    time_limit=int(settings.HINT_SECONDS) + 60,
)
def hint_solve_task(
    attempt_id: int, log_length: int, seconds: float, nodes: int | None = None
) -> dict[str, Any]:
    """A practice hint's search, off the web processes (games/services/hints.py): the hint from the
    position after ``log_length`` actions (the line found is kept in the shared cache).
    ``nodes``: the search's budget in positions (none from a web process of an older release)."""
    attempt = Attempt.objects.select_related("deal").get(pk=attempt_id)
    return position_hint(attempt, log_length, seconds, nodes)


@shared_task(
    name=ANALYSIS_TASK,
    soft_time_limit=int(settings.ANALYSIS_SECONDS) + 60,
    time_limit=int(settings.ANALYSIS_SECONDS) + 120,
)
def attempt_analyse_task(analysis_id: int) -> str:
    """A finished game's analysis (games/services/analysis.py); a second run does nothing."""
    return str(analysis_run(analysis_id=analysis_id).status)


@shared_task(name="games.dailies_prepare")
def dailies_prepare_task() -> str:
    """Beat: keep the next days and the practice pools filled (see services.dailies)."""
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    report = dailies_prepare(enqueue=enqueue_verification, max_rounds=5 if eager else 1)
    return report.summary()


@shared_task(name="games.attempts_close_day")
def attempts_close_day_task() -> int:
    """Beat at 00:00 UTC (safe any time): end the open ranked attempts of past days."""
    return len(attempts_close_day())
