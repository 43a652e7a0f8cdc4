"""The full stack across midnight: a real `celery beat` and a real worker (REDIS_URL set),
their clocks and this process's shifted together to a few seconds before 00:00 UTC of DAY
(tests/shifted_clock.py).

Beat's schedule holds the entries; the prepare entry, run as beat runs it, fills the next
day on the worker; at 00:00:00 beat itself sends the close-day entry, the worker closes the
open attempt, and its final board reaches a watcher through the Redis channel layer.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.schedules import crontab
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.utils import timezone

from config.celery import app
from games.models import Attempt, DailyChallenge
from tests.celery_worker import ROOT, CeleryWorker, start_celery_worker
from tests.factories import make_player
from tests.games import midnight_support as midnight
from tests.games.api_support import client_for
from tests.games.conftest import OTHER_QUICK_SEED, QUICK_DRAW_LIMITS, QUICK_VARIANT
from tests.run_support import stop_process
from tests.shifted_clock import SHIFT_VARIABLE, shift_to, shifted_clock
from tests.waiting import wait_for

db = database_sync_to_async
LATE = 3.0  # beat wakes at 00:00:00; the worker closes, the board window is 0.25 s
SETUP_SECONDS = 50.0  # starting a worker and beat on a busy machine, and preparing the day

STACK_ENV = {
    "DJANGO_SETTINGS_MODULE": "tests.clock_settings",
    "DAILY_VARIANTS": QUICK_VARIANT,
    "DAILY_DAYS_AHEAD": "2",
    "PRACTICE_POOL_SIZE": "0",
    **QUICK_DRAW_LIMITS,
}


@pytest.fixture
def stack_settings(settings: Any) -> None:
    settings.DAILY_VARIANTS = [QUICK_VARIANT]
    settings.DAILY_DAYS_AHEAD = 2
    settings.PRACTICE_POOL_SIZE = 0


@pytest.fixture
def app_on_queue() -> Iterator[Any]:
    """This process's Celery app sends to the test's worker (set once it has started)."""
    saved = {key: app.conf[key] for key in ("task_always_eager", "task_default_queue")}
    yield app.conf
    app.conf.update(saved)


def start_beat(log_dir: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "celery", "-A", "config", "beat",
        "-s", str(log_dir / "celerybeat-schedule"), "--loglevel=INFO",
    ]  # fmt: skip
    with (log_dir / "beat.log").open("wb") as log_file:
        return subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )


def test_the_beat_schedule_holds_the_days_entries() -> None:
    entries = django_settings.CELERY_BEAT_SCHEDULE
    assert entries["attempts-close-day"]["task"] == "games.attempts_close_day"
    assert entries["attempts-close-day"]["schedule"] == crontab(minute=0, hour=0)
    assert entries["dailies-prepare"]["task"] == "games.dailies_prepare"
    assert entries["dailies-prepare"]["schedule"] == django_settings.DAILIES_PREPARE_EVERY


@pytest.mark.redis
@pytest.mark.celery
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_beat_and_a_worker_roll_the_day_over_at_midnight(
    stack_settings: None, app_on_queue: Any, tmp_path: Path
) -> None:
    shift = shift_to(midnight.at(-SETUP_SECONDS))
    with shifted_clock(shift):
        today = await db(midnight.daily_on)(midnight.DAY)
        # A verified deal waits in the daily pool (verified by an earlier beat, say), so that
        # the prepare entry fills the next day without waiting for a random deal's solve.
        spare = await db(midnight.verified_deal)(OTHER_QUICK_SEED)
        client = client_for(await db(make_player)())
        attempt_id = await db(midnight.start_and_leave_open)(client, today)
        env = {**STACK_ENV, SHIFT_VARIABLE: str(shift)}
        worker: CeleryWorker = await asyncio.to_thread(start_celery_worker, tmp_path, extra_env=env)
        beat = start_beat(tmp_path, worker.env)
        app_on_queue.task_always_eager = False
        app_on_queue.task_default_queue = worker.queue
        try:
            # Beat's prepare entry, as beat sends it: the worker schedules the next day.
            prepare = django_settings.CELERY_BEAT_SCHEDULE["dailies-prepare"]
            result = app.send_task(prepare["task"], **prepare.get("options", {}))
            await asyncio.to_thread(result.get, timeout=worker.timeout)
            tomorrow = await wait_until(
                lambda: DailyChallenge.objects.filter(date=midnight.NEXT_DAY).first(),
                midnight.at(-3),
            )
            watcher = await midnight.watch(today.pk)
            assert tomorrow.deal_id == spare.pk
            assert await db(midnight.todays_challenge_ids)(client) == (
                midnight.DAY.isoformat(),
                [today.pk],
            )
            await db(midnight.assert_still_secret)(client, today)
            assert timezone.now() < midnight.MIDNIGHT, "set-up took too long: raise SETUP_SECONDS"

            # 00:00:00: beat sends the close-day entry, the worker closes, watchers see it.
            board = await midnight.next_board(watcher, timeout=SETUP_SECONDS)
            pushed_at = timezone.now()
            closed = await db(Attempt.objects.get)(pk=attempt_id)
            assert closed.ended_at == midnight.MIDNIGHT
            assert closed.end_reason == Attempt.EndReason.DAY_CLOSED
            assert midnight.board_of(board) == [(attempt_id, closed.score)]
            assert midnight.MIDNIGHT <= pushed_at < midnight.at(LATE), (
                pushed_at,
                beat_log(tmp_path),
            )
            assert "games.attempts_close_day" in beat_log(tmp_path)

            assert await db(midnight.todays_challenge_ids)(client) == (
                midnight.NEXT_DAY.isoformat(),
                [tomorrow.pk],
            )
            await db(midnight.assert_closed_and_ranked)(client, attempt_id, today.pk)
            await db(midnight.assert_public)(client, today)
            await watcher.disconnect()
        finally:
            stop_process(beat)
            await asyncio.to_thread(worker.stop)


async def wait_until(find: Any, deadline: Any) -> Any:
    while True:
        found = await db(find)()
        if found:
            return found
        if timezone.now() > deadline:
            raise AssertionError("the worker did not schedule the next day's daily in time")
        await asyncio.sleep(0.1)


def beat_log(log_dir: Path) -> str:
    return (log_dir / "beat.log").read_text(errors="replace")


@pytest.mark.redis
@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_fresh_stack_prepares_today_when_beat_starts_not_an_interval_later(
    stack_settings: None, tmp_path: Path
) -> None:
    """Beat sends the preparation as it starts (config/celery.py): with an hour between
    two beats, today's daily is still proven and scheduled within a minute."""
    env = {**STACK_ENV, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env["DAILIES_PREPARE_EVERY"] = "3600"
    worker = start_celery_worker(tmp_path, extra_env=env)
    beat = start_beat(tmp_path, worker.env)
    try:
        try:
            wait_for(
                DailyChallenge.objects.filter(date=timezone.now().date()).exists,
                60,
                "today's daily",
            )
        except AssertionError as late:
            raise AssertionError(f"{late}\n{beat_log(tmp_path)}{worker.log()}") from late
        daily = DailyChallenge.objects.select_related("deal").get(date=timezone.now().date())
        assert daily.variant == QUICK_VARIANT and daily.deal.par
        assert daily.deal.solver_improve_nodes is not None
    finally:
        stop_process(beat)
        worker.stop()
