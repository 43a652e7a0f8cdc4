"""The beat's rooms job, run by a real Celery worker and by the embedded run's beat."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from games.background_verifier import BackgroundVerifier
from games.embedded_beat import EmbeddedBeat
from rooms.models import Room
from rooms.tasks import TIDY_TASK, rooms_tidy_task
from tests.rooms.conftest import open_room, post, racers

pytestmark = pytest.mark.django_db(transaction=True)


def emptied_room() -> str:
    (_, host), (_, guest) = racers("host", "guest")
    code = open_room(host)["code"]
    post(guest, f"rooms/{code}/join/")
    post(host, f"rooms/{code}/leave/")
    post(guest, f"rooms/{code}/leave/")
    return str(code)


def test_the_beat_schedule_runs_the_rooms_job_and_a_worker_closes_an_empty_room(
    celery_worker: Any,
) -> None:
    assert {"task": TIDY_TASK, "schedule": settings.ROOMS_TIDY_EVERY} in (
        settings.CELERY_BEAT_SCHEDULE.values()
    )
    code = emptied_room()
    assert Room.objects.get(code=code).status == "lobby"
    outcome = rooms_tidy_task.delay().get(timeout=celery_worker.timeout)
    assert outcome.startswith("closed 1 empty room(s)")
    assert Room.objects.get(code=code).status == "closed"
    answer = post(racers("late")[0][1], f"rooms/{code}/join/")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "room_started"


def test_the_embedded_beat_runs_the_rooms_job_too() -> None:
    jobs = EmbeddedBeat.from_settings(BackgroundVerifier()).jobs
    assert TIDY_TASK in [job.task for job in jobs]
    code = emptied_room()
    rooms_only = EmbeddedBeat([job for job in jobs if job.task == TIDY_TASK])
    assert rooms_only.run_due() == [TIDY_TASK]
    assert Room.objects.get(code=code).status == "closed"
