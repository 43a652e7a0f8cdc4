"""The reminders go out from the beat's task, never from a request: a real Celery worker
runs it in the full stack, the server's own beat in the embedded run; both push to the
local push service (tests/push_service.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from games.embedded_beat import jobs_for
from notifications.tasks import SEND_TASK, send_reminders_task
from tests.celery_worker import CeleryWorker, app_served_by_a_worker
from tests.factories import make_challenge, make_player
from tests.notifications.conftest import subscribe
from tests.push_service import PushService

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def reminders_worker(
    vapid_key: str, tmp_path: Path, django_db_blocker: Any
) -> Iterator[CeleryWorker]:
    """A Celery worker of this test's own, with this test's VAPID key in its environment."""
    extra_env = {"VAPID_PRIVATE_KEY": vapid_key}
    with app_served_by_a_worker(django_db_blocker, tmp_path, extra_env) as worker:
        yield worker


@pytest.mark.celery
@pytest.mark.redis
def test_a_celery_worker_sends_the_morning_reminder(
    reminders_worker: CeleryWorker, push_service: PushService
) -> None:
    make_challenge(dt.datetime.now(dt.UTC).date())
    endpoint = subscribe(push_service, make_player("early"))
    outcome = send_reminders_task.delay().get(timeout=reminders_worker.timeout)
    assert outcome.startswith("sent 1 reminder(s)"), outcome
    assert push_service.messages_for(endpoint)[0]["kind"] == "deal_ready"


def test_the_beat_schedules_the_reminders_and_the_embedded_beat_runs_them(
    push_service: PushService,
) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["notifications-send-reminders"]
    assert entry == {"task": SEND_TASK, "schedule": settings.REMINDERS_EVERY}
    (job,) = [job for job in jobs_for(settings.CELERY_BEAT_SCHEDULE, {}) if job.task == SEND_TASK]
    make_challenge(dt.datetime.now(dt.UTC).date())
    endpoint = subscribe(push_service, make_player("embedded"))
    job.run()  # what the embedded beat calls: the task's body, in the server's process
    assert push_service.messages_for(endpoint)[0]["kind"] == "deal_ready"
