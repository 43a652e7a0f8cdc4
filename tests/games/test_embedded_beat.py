"""The embedded run across midnight (no REDIS_URL: no worker, no beat), on a controlled clock.

The server's ASGI lifespan starts the embedded beat (games/embedded_lifespan.py), as under
`scripts/dev.py run`; the clock is time-machine's, started a few seconds before 00:00 UTC
of DAY and ticking in real time. A player's attempt is left open and a watcher is
connected to the day's board (in-memory channel layer, as in the embedded run); nothing
touches the attempt after midnight until the checks, so whatever closes it is the beat.

The tests whose threads (beat, verifier, requests) use the database at once need
PostgreSQL: the suite's SQLite database is in memory with a shared cache, whose table
locks fail at once ("database table is locked") instead of waiting as the embedded run's
SQLite file does; bench/midnight_bench.py crosses midnight on that file.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
import time_machine
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from config.asgi import application
from games.background_verifier import BackgroundVerifier
from games.embedded_beat import (
    CLOSE_DAY,
    PREPARE,
    REDRAW_SECONDS,
    BeatJob,
    EmbeddedBackground,
    EmbeddedBeat,
    as_schedule,
    jobs_for,
)
from games.models import Attempt, Deal
from games.services.deals import deal_create
from tests.factories import make_player
from tests.games.api_support import client_for
from tests.games.conftest import QUICK_DRAW_LIMITS, QUICK_SEEDS, QUICK_VARIANT, UNWON_IN_A_MINUTE
from tests.games.midnight_support import (
    DAY,
    MIDNIGHT,
    NEXT_DAY,
    assert_closed_and_ranked,
    assert_public,
    assert_still_secret,
    at,
    board_of,
    daily_on,
    next_board,
    next_days_daily,
    start_and_leave_open,
    todays_challenge_ids,
    watch,
)
from tests.waiting import wait_for

T = TypeVar("T")
db = database_sync_to_async
# The day's set-up (two solver runs, a player, an attempt) happens this long before midnight,
# then the clock moves on to the few seconds before it that each test is about.
SET_UP_SECONDS = 3600
# How late after 00:00:00 a player may see the new day (the beat looks at least once a second).
LATE = 2.0


@pytest.fixture
def embedded(settings: Any, transactional_db: None) -> Iterator[None]:
    """The README's embedded run: no REDIS_URL, in-memory channel layer; one quick daily
    variant, two days ahead, no practice pool (so the background work stays small).

    A solver run cannot be cut short: a verifier stopped mid-deal ends once its deal is
    done. The fixture waits for it, before the database is emptied for the next test."""
    settings.REDIS_URL = None
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.DAILY_VARIANTS = [QUICK_VARIANT]
    settings.DAILY_DAYS_AHEAD = 2
    settings.PRACTICE_POOL_SIZE = 0
    settings.SOLVER_SECONDS = float(QUICK_DRAW_LIMITS["SOLVER_SECONDS"])
    settings.SOLVER_NODES = int(QUICK_DRAW_LIMITS["SOLVER_NODES"])
    yield
    wait_for(lambda: not embedded_threads(), 60, "the embedded threads to end")


async def until_midnight() -> None:
    await asyncio.sleep(max(0.0, (MIDNIGHT - timezone.now()).total_seconds()))


def attempt_row(attempt_id: int) -> Attempt:
    return Attempt.objects.get(pk=attempt_id)


def embedded_threads() -> set[str]:
    names = {"embedded-beat", "embedded-verifier"}
    return {thread.name for thread in threading.enumerate() if thread.name in names}


# --- the schedule -------------------------------------------------------------------


def test_every_beat_entry_runs_in_the_embedded_beat_on_beats_schedule() -> None:
    jobs = EmbeddedBeat.from_settings(verifier=None).jobs  # type: ignore[arg-type]

    assert {job.entry: job.task for job in jobs} == {
        entry: spec["task"] for entry, spec in django_settings.CELERY_BEAT_SCHEDULE.items()
    }
    assert [job.task for job in jobs][:1] == [CLOSE_DAY]  # due together: the close first
    assert {CLOSE_DAY, PREPARE} <= {job.task for job in jobs}
    close = next(job for job in jobs if job.task == CLOSE_DAY)
    prepare = next(job for job in jobs if job.task == PREPARE)
    with time_machine.travel(at(-0.5), tick=False):
        close.last_run_at = prepare.last_run_at = at(-10)
        assert close.seconds_until_due(timezone.now()) == pytest.approx(0.5)
        assert prepare.seconds_until_due(timezone.now()) == pytest.approx(
            django_settings.DAILIES_PREPARE_EVERY - 9.5
        )
    with time_machine.travel(at(0), tick=False):
        assert close.seconds_until_due(timezone.now()) == 0


def test_a_beat_entry_the_embedded_beat_cannot_run_is_refused() -> None:
    schedule = {"new-job": {"task": "games.something_new", "schedule": 60}}

    with pytest.raises(LookupError, match=r"games\.something_new"):
        jobs_for(schedule, {})


@pytest.mark.django_db(transaction=True)  # the beat closes its connection after each job
def test_a_redraw_asked_for_while_the_first_preparation_runs_is_not_lost() -> None:
    # The verifier can finish a candidate the running preparation queued before that
    # preparation returns (its first run of all, on PostgreSQL): the ask must still count.
    beat = EmbeddedBeat([])
    asked = []

    def prepare() -> None:
        asked.append(True)
        beat.run_soon(PREPARE, REDRAW_SECONDS)

    beat.jobs = [BeatJob("prepare", PREPARE, as_schedule(600), prepare)]
    with time_machine.travel(at(-3600), tick=False):
        assert beat.run_due() == [PREPARE]
        assert beat.jobs[0].seconds_until_due(timezone.now()) == REDRAW_SECONDS
    with time_machine.travel(at(-3600 + REDRAW_SECONDS), tick=False):
        assert beat.run_due() == [PREPARE]
    assert len(asked) == 2


@pytest.mark.django_db(transaction=True)  # the beat closes its connection after each job
def test_what_a_job_did_is_logged_once_by_its_service_not_again_by_the_beat(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.DAILY_VARIANTS = settings.PRACTICE_VARIANTS = [QUICK_VARIANT]
    caplog.set_level(logging.INFO)
    beat = EmbeddedBeat.from_settings(BackgroundVerifier())  # queues, never started here
    assert beat.run_due() == [
        CLOSE_DAY,
        PREPARE,
        "leaderboards.ratings_rate_closed_days",
        "rooms.rooms_tidy",
        "notifications.send_reminders",
    ]
    messages = [record.getMessage() for record in caplog.records]
    assert len([m for m in messages if "still missing" in m]) == 1, messages
    assert len(messages) == len(set(messages)), messages


# --- across midnight ----------------------------------------------------------------


async def _a_day_played_and_watched() -> tuple[Any, Any, Any, int, Any]:
    """Today's and tomorrow's dailies, a player's attempt left open today, a page watching."""
    today = await db(daily_on)(DAY)
    tomorrow = await db(next_days_daily)()
    client = client_for(await db(make_player)())
    attempt_id = await db(start_and_leave_open)(client, today)
    return today, tomorrow, client, attempt_id, await watch(today.pk)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_embedded_run_rolls_over_at_midnight_without_a_restart(
    embedded: None,
) -> None:
    with time_machine.travel(at(-SET_UP_SECONDS), tick=True) as clock:
        today, tomorrow, client, attempt_id, watcher = await _a_day_played_and_watched()
        clock.move_to(at(-4))
        server = ApplicationCommunicator(application, {"type": "lifespan"})
        await server.send_input({"type": "lifespan.startup"})
        assert (await server.receive_output(10))["type"] == "lifespan.startup.complete"
        try:
            assert embedded_threads() == {"embedded-beat", "embedded-verifier"}
            assert await db(todays_challenge_ids)(client) == (DAY.isoformat(), [today.pk])
            await db(assert_still_secret)(client, today)

            # The final board reaches the watcher: the beat closed the attempt at 00:00.
            board = await next_board(watcher, timeout=10)
            pushed_at = timezone.now()
            closed = await db(attempt_row)(attempt_id)
            assert closed.ended_at == MIDNIGHT
            assert closed.end_reason == Attempt.EndReason.DAY_CLOSED
            assert board_of(board) == [(attempt_id, closed.score)]
            assert MIDNIGHT <= pushed_at < at(LATE)

            # The next day's daily is playable, and yesterday is public.
            assert await db(todays_challenge_ids)(client) == (NEXT_DAY.isoformat(), [tomorrow.pk])
            await db(assert_closed_and_ranked)(client, attempt_id, today.pk)
            await db(assert_public)(client, today)
            started = await db(client.post)(f"/api/v1/challenges/{tomorrow.pk}/start/")
            assert started.status_code == 201
        finally:
            await watcher.disconnect()
            await server.send_input({"type": "lifespan.shutdown"})
            assert (await server.receive_output(20))["type"] == "lifespan.shutdown.complete"
    assert "embedded-beat" not in embedded_threads()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_server_started_at_23_59_50_has_the_next_daily_ready_at_midnight(
    embedded: None, settings: Any
) -> None:
    """Start-up made today playable (scripts/dev.py prepares today only); the next day is
    left to the embedded beat, which verifies a new candidate in the background (Spider 2
    suits: 99 % of deals proved in under 1.2 s, docs/solver.md)."""
    settings.DAILY_VARIANTS = ["spider2"]
    with time_machine.travel(at(-SET_UP_SECONDS), tick=True) as clock:
        await db(daily_on)(DAY, QUICK_SEEDS["spider2"], "spider2")
        client = client_for(await db(make_player)())
        clock.move_to(at(-10))
        server = ApplicationCommunicator(application, {"type": "lifespan"})
        await server.send_input({"type": "lifespan.startup"})
        assert (await server.receive_output(10))["type"] == "lifespan.startup.complete"
        try:
            await until_midnight()
            date, challenges = await db(todays_challenge_ids)(client)
            assert date == NEXT_DAY.isoformat()
            assert len(challenges) == 1, "the next day's daily was not ready at 00:00"
        finally:
            await server.send_input({"type": "lifespan.shutdown"})
            assert (await server.receive_output(20))["type"] == "lifespan.shutdown.complete"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_server_suspended_across_midnight_catches_up_on_waking(embedded: None) -> None:
    with time_machine.travel(at(-SET_UP_SECONDS), tick=True) as clock:
        today, tomorrow, client, attempt_id, watcher = await _a_day_played_and_watched()
        clock.move_to(at(-30))
        background = EmbeddedBackground()
        background.start()
        try:
            await asyncio.sleep(1.5)  # the start-up round: nothing to close yet
            assert (await db(attempt_row)(attempt_id)).ended_at is None

            # Suspended: the wall clock jumps 7 minutes while the process stood still.
            clock.move_to(at(7 * 60))
            woke = asyncio.get_running_loop().time()
            board = await next_board(watcher, timeout=5)
            assert asyncio.get_running_loop().time() - woke < LATE
            closed = await db(attempt_row)(attempt_id)
            assert closed.ended_at == MIDNIGHT  # closed as of the day's end, not of waking
            assert board_of(board) == [(attempt_id, closed.score)]
            assert await db(todays_challenge_ids)(client) == (NEXT_DAY.isoformat(), [tomorrow.pk])
            await db(assert_public)(client, today)
            # ...and the new day is prepared: the slot DAILY_DAYS_AHEAD out has a candidate.
            assert await db(Deal.objects.filter(pool=Deal.Pool.DAILY).count)() == 3
        finally:
            await watcher.disconnect()
            await asyncio.to_thread(background.stop)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_verification_running_at_midnight_does_not_delay_the_close(
    embedded: None, settings: Any
) -> None:
    # A deal the solver does not win within its limit: the verification surely runs past
    # the close (a quick one finished before the board arrived on a loaded machine).
    settings.SOLVER_SECONDS = 8.0
    settings.SOLVER_NODES = 0  # the time limit alone: the run lasts 8 s on any machine
    with time_machine.travel(at(-SET_UP_SECONDS), tick=True) as clock:
        today = await db(daily_on)(DAY)
        await db(next_days_daily)()
        client = client_for(await db(make_player)())
        attempt_id = await db(start_and_leave_open)(client, today)
        slow = await db(deal_create)(variant=UNWON_IN_A_MINUTE[0], seed=UNWON_IN_A_MINUTE[1])
        watcher = await watch(today.pk)
        clock.move_to(at(-3))
        background = EmbeddedBackground()
        background.start()
        try:
            await asyncio.sleep(max(0.0, (at(-1) - timezone.now()).total_seconds()))
            await db(background.verifier.submit)(slow.pk)  # a solver run of 8 s

            await next_board(watcher, timeout=10)
            closed_at = timezone.now()
            assert closed_at < at(LATE)
            assert (await db(attempt_row)(attempt_id)).ended_at == MIDNIGHT
            still = await db(Deal.objects.get)(pk=slow.pk)
            assert still.status == Deal.Status.VERIFYING, "the slow deal was already done"
            assert await asyncio.to_thread(background.verifier.wait_until_idle, 120)
            finished = await db(Deal.objects.get)(pk=slow.pk)
            assert finished.status == Deal.Status.UNKNOWN  # its limit reached, after the close
        finally:
            await watcher.disconnect()
            await asyncio.to_thread(background.stop)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_with_redis_the_lifespan_leaves_the_schedule_to_celery_beat(settings: Any) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    # (Seconds before midnight, not one: the day's deal is proved first, par phase included.)
    with time_machine.travel(at(-20), tick=True):
        await db(daily_on)(DAY)
        server = ApplicationCommunicator(application, {"type": "lifespan"})
        await server.send_input({"type": "lifespan.startup"})
        assert (await server.receive_output(10))["type"] == "lifespan.startup.complete"
        assert embedded_threads() == set()
        await asyncio.sleep(1.5)
        # The embedded beat would have drawn candidates for the next days at once.
        assert await db(Deal.objects.count)() == 1
        await server.send_input({"type": "lifespan.shutdown"})
        assert (await server.receive_output(10))["type"] == "lifespan.shutdown.complete"


@pytest.mark.django_db(transaction=True)
def test_an_unproved_candidate_is_replaced_within_seconds_not_at_the_next_beat(
    embedded: None, settings: Any
) -> None:
    settings.SOLVER_NODES = 1  # every candidate comes back unknown, on any machine
    settings.DAILY_DAYS_AHEAD = 1
    background = EmbeddedBackground()
    background.start()
    try:
        first = wait_for(
            fresh(lambda: Deal.objects.filter(status=Deal.Status.UNKNOWN).first()),
            10,
            "a first candidate left unknown",
        )
        # Within seconds, long before the next beat (DAILIES_PREPARE_EVERY, 600 s, away), with
        # room for a loaded CI machine, where the background loop's turn can come late (a
        # full-stack CI run on two busy cores once took more than 17 s).
        second = wait_for(
            fresh(lambda: Deal.objects.exclude(pk=first.pk).first()), 60, "a second candidate"
        )
        assert second.pool == Deal.Pool.DAILY
        # ...but not in a tight loop: one new candidate per REDRAW_SECONDS at most.
        time.sleep(REDRAW_SECONDS)
        assert Deal.objects.count() <= 4
    finally:
        background.stop()


def fresh(find: Callable[[], T]) -> Callable[[], T]:
    """``find``, each look on a connection of its own, as the beat's threads do."""

    def look() -> T:
        connection.close()
        return find()

    return look
