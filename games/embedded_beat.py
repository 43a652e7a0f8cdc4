"""The embedded run's beat: celery beat's schedule, kept by the server process itself.

Without REDIS_URL (the README's `scripts/dev.py run`) there is no broker, no worker and no
`celery beat`, yet the day must still close at 00:00 UTC and the next days must still be
prepared. ``EmbeddedBeat`` reads the very entries beat reads (``CELERY_BEAT_SCHEDULE``:
their celery schedule objects decide when each is due) and runs, for each, the service the
task calls, on a daemon thread of its own:

- ``games.attempts_close_day``: ``attempts_close_day()``, which ends the open ranked
  attempts of past days and (after each commit) pushes the final boards to the watchers;
- ``games.dailies_prepare``: ``dailies_prepare()`` with the background verifier as its
  queue (games/background_verifier.py), so a solver run never delays the day's close;
- any other app's beat task (``rooms.rooms_tidy``): the registered task's body, called here.

Every job is due at start-up, and all are due again as soon as the UTC date has changed
since the last look: a server started at 23:59:50, or suspended across midnight and
resumed, closes the day it missed and prepares the new one at once. The thread looks at
the wall clock at least once a second (``MAX_SLEEP_SECONDS``), so a jump of the clock
(a resume, a corrected clock) is noticed within a second; otherwise it sleeps until the
next job is due. Why a loop of our own rather than celery beat in a thread:
docs/embedded.md.
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from celery import current_app
from celery.schedules import BaseSchedule, schedule
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules

from games.background_verifier import BackgroundVerifier
from games.models import Deal
from games.services.attempts import attempts_close_day
from games.services.dailies import dailies_prepare

log = logging.getLogger(__name__)

MAX_SLEEP_SECONDS = 1.0
RETRY_SECONDS = 30.0  # after a job failed (the database was busy, say)
REDRAW_SECONDS = 5.0  # prepare again this soon after a candidate came back unproved
SWITCH_INTERVAL_SECONDS = 0.0005

CLOSE_DAY = "games.attempts_close_day"
PREPARE = "games.dailies_prepare"


def embedded_jobs(verifier: BackgroundVerifier) -> dict[str, Callable[[], object]]:
    """What the embedded beat runs for each beat task: the task's own service (which logs
    what it did: the beat adds no second line for the same event)."""

    def close_day() -> object:
        return attempts_close_day()

    def prepare() -> object:
        return dailies_prepare(enqueue=verifier.submit)

    return {CLOSE_DAY: close_day, PREPARE: prepare}


def registered_task(name: str) -> Callable[[], object] | None:
    """Another app's beat task (rooms.rooms_tidy, say), run here in-process as a plain call:
    the body of the task, which calls its service (games imports no other app)."""
    # The apps' tasks modules are imported by a worker at its start, not by a web process.
    # (Not through celery's loader: its Django fix-up would set Django up, logging too, again.)
    autodiscover_modules("tasks")
    task = current_app.tasks.get(name)
    return None if task is None else task.run


def as_schedule(value: Any) -> BaseSchedule:
    """A beat entry's ``schedule`` as celery reads it: a schedule object, or seconds."""
    if isinstance(value, BaseSchedule):
        return value
    seconds = value.total_seconds() if isinstance(value, dt.timedelta) else float(value)
    return schedule(run_every=dt.timedelta(seconds=seconds))


@dataclass
class BeatJob:
    entry: str  # the beat entry's name, e.g. "attempts-close-day"
    task: str  # the task it stands for, e.g. "games.attempts_close_day"
    schedule: BaseSchedule
    run: Callable[[], object]
    last_run_at: dt.datetime | None = None  # None: due now
    retry_at: dt.datetime | None = None
    running: bool = False

    def due_again_within(self, when: dt.datetime) -> None:
        """Be due again at ``when`` at the latest (an earlier due time stands)."""
        if self.retry_at is None or when < self.retry_at:
            self.retry_at = when

    def seconds_until_due(self, now: dt.datetime) -> float:
        if self.retry_at is not None:
            return max(0.0, (self.retry_at - now).total_seconds())
        if self.last_run_at is None:
            return 0.0
        due, next_check = self.schedule.is_due(self.last_run_at)
        return 0.0 if due else max(0.0, float(next_check))


def jobs_for(
    beat_schedule: Mapping[str, Mapping[str, Any]], runners: Mapping[str, Callable[[], object]]
) -> list[BeatJob]:
    """One job per beat entry; an entry whose task has no runner here is an error, so that a
    new beat entry cannot be silently missing from the embedded run. When several are due
    at once (at start-up, after midnight) the day's close goes first: players wait for it,
    while the preparation is for days ahead."""
    jobs = []
    for entry, spec in beat_schedule.items():
        task = spec["task"]
        runner = runners.get(task) or registered_task(task)
        if runner is None:
            raise LookupError(f"beat entry {entry!r} runs {task!r}, which the embedded beat lacks")
        jobs.append(BeatJob(entry, task, as_schedule(spec["schedule"]), runner))
    return sorted(jobs, key=lambda job: job.task != CLOSE_DAY)


class EmbeddedBeat:
    """Runs due jobs on a daemon thread (``start``/``stop``), or once (``run_due``)."""

    def __init__(self, jobs: list[BeatJob]) -> None:
        self.jobs = jobs
        self._last_date: dt.date | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_settings(cls, verifier: BackgroundVerifier) -> EmbeddedBeat:
        return cls(jobs_for(settings.CELERY_BEAT_SCHEDULE, embedded_jobs(verifier)))

    def run_due(self) -> list[str]:
        """Run every job due now (the day's close first); returns the tasks run."""
        now = timezone.now()
        today = now.astimezone(dt.UTC).date()
        if self._last_date is not None and today != self._last_date:
            log.info("embedded beat: the UTC date is now %s", today)
            for job in self.jobs:
                job.last_run_at = job.retry_at = None
        self._last_date = today
        ran = []
        for job in self.jobs:
            if job.seconds_until_due(now) <= 0:
                self._run(job, now)
                ran.append(job.task)
        return ran

    def run_soon(self, task: str, seconds: float) -> None:
        """Run ``task``'s job within ``seconds`` (sooner if it is due sooner anyway). Asked
        while the job runs (a verification the running job queued came back already), it
        asks for one more run after this one: the running one may have read the state from
        before the news."""
        now = timezone.now()
        for job in self.jobs:
            if job.task == task and (job.running or job.seconds_until_due(now) > seconds):
                job.due_again_within(now + dt.timedelta(seconds=seconds))

    def seconds_until_next(self) -> float:
        now = timezone.now()
        soonest = min((job.seconds_until_due(now) for job in self.jobs), default=MAX_SLEEP_SECONDS)
        return min(soonest, MAX_SLEEP_SECONDS)

    def _run(self, job: BeatJob, now: dt.datetime) -> None:
        job.retry_at = None  # taken; a run_soon() from here on asks for one more run
        job.running = True
        close_old_connections()
        try:
            outcome = job.run()
        except Exception:
            log.exception("embedded beat: %s failed; retried in %.0f s", job.task, RETRY_SECONDS)
            job.due_again_within(timezone.now() + dt.timedelta(seconds=RETRY_SECONDS))
            return
        finally:
            job.running = False
            connection.close()
        job.last_run_at = now
        log.debug("embedded beat: %s ran: %r", job.task, outcome)

    # --- the thread ---

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="embedded-beat", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                self.run_due()
            except Exception:  # pragma: no cover - _run guards each job
                log.exception("embedded beat: tick failed")
            self._stopping.wait(self.seconds_until_next())


class EmbeddedBackground:
    """The embedded beat and its verifier, started and stopped together
    (games/embedded_lifespan.py).

    A candidate that comes back unproved (unsolvable, unknown) makes the prepare job due
    within ``REDRAW_SECONDS``, so that a missing day gets its next candidate now rather than
    at the next beat (and a solver that proves nothing cannot make it spin).
    """

    def __init__(self) -> None:
        self.verifier = BackgroundVerifier()
        self.beat = EmbeddedBeat.from_settings(self.verifier)
        self.verifier.after_each = self._after_verification
        self._switch_interval = sys.getswitchinterval()

    def _after_verification(self, deal_id: int, outcome: object) -> None:
        if outcome != Deal.Status.VERIFIED:
            log.info("deal %s: %s; the next candidates are drawn now", deal_id, outcome)
            self.beat.run_soon(PREPARE, REDRAW_SECONDS)

    def start(self) -> None:
        # The verifier's pure-Python solver holds the interpreter lock until another thread
        # has waited a whole switch interval for it (5 ms by default), and a request waits
        # again after each database query: a shorter interval gives the lock back to the
        # requests sooner (bench/embedded_latency_bench.py).
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
        self.verifier.start()
        self.beat.start()

    def stop(self) -> None:
        self.beat.stop()
        self.verifier.stop()
        sys.setswitchinterval(self._switch_interval)
