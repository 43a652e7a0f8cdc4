"""Hints for practice attempts: the next action of a known winning line, the solver only
when the player has left every line known.

A winning line from a position gives the hint for every position along it, so a line is
kept (in the cache, per attempt: the log's length where it starts and its actions) and
the deal's own verified solution is a line from the start. While the player's log
follows a line, the hint is its next action: no search. Otherwise the solver searches,
with its time limit (``HINT_SECONDS``):

- with Celery workers (``REDIS_URL`` set), on a worker (task ``games.hint_solve`` on
  ``HINT_QUEUE``): the web process only waits for the answer, so a search never holds a
  web process's interpreter while it serves other players. A hint not back in time (the
  workers busy) answers 503 ``hints_busy``; a search already under way goes on and keeps
  its line, so asking again soon answers from it (one not started in time is dropped).
  A waiting hint holds one of the process's HTTP threads, so at most
  ``HINT_WAITS_PER_PROCESS`` wait at once; another answers 503 ``hints_busy`` at once,
  and the other threads stay free for action posts.
- in the embedded run (tasks run eagerly, no worker), in the request, at most
  ``HINT_SOLVES_PER_PROCESS`` at once per process; a hint asked while they are taken
  answers 503 ``hints_busy`` at once instead of queueing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from celery import current_app
from celery.exceptions import TaskRevokedError
from celery.exceptions import TimeoutError as CeleryTimeoutError
from django.conf import settings
from django.core.cache import cache
from django.db.models import F
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError

from games import solver
from games.errors import (
    AttemptOverError,
    HintBudgetSpentError,
    HintsBusyError,
    HintsNotAllowedError,
)
from games.models import Attempt
from games.selectors import attempt_board

LINE_SECONDS = 6 * 3600  # a practice game left for longer solves again
BUSY = "The hint solver is busy with other players' positions: ask again in a moment."
UNREACHABLE = "The hint solver cannot be reached right now: ask again in a moment."
# What the cache (Redis) or the broker raise when Redis is down: a hint then needs no
# remembered line (one is searched for, or the hint is 503), never a 500.
REDIS_DOWN = (RedisError, OSError, BrokerError)


def _remembered_line(attempt: Attempt) -> Any:
    try:
        return cache.get(_line_key(attempt))
    except REDIS_DOWN:
        return None


_slots: dict[str, threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def process_slots(setting: str) -> threading.BoundedSemaphore:
    """This process's slots for one kind of hint work: as many as the setting ``setting``."""
    with _slots_lock:
        if setting not in _slots:
            _slots[setting] = threading.BoundedSemaphore(max(1, getattr(settings, setting)))
        return _slots[setting]


@contextmanager
def _a_free_slot(setting: str) -> Iterator[None]:
    """Hold one of the process's slots for ``setting``, or answer 503 at once (no queueing)."""
    slots = process_slots(setting)
    if not slots.acquire(blocking=False):
        raise HintsBusyError(BUSY)
    try:
        yield
    finally:
        slots.release()


def hint_solver_slot() -> Any:
    """One of this process's in-request solver slots (``HINT_SOLVES_PER_PROCESS``), or 503
    ``hints_busy`` at once: hints in the embedded run, auto-complete everywhere."""
    return _a_free_slot("HINT_SOLVES_PER_PROCESS")


def _line_key(attempt: Attempt) -> str:
    # The deal and the start too: ids alone can come back after a database is recreated.
    return f"hint-line:{attempt.pk}:{attempt.deal_id}:{attempt.started_at.timestamp()}"


def _next_on(line: dict[str, Any] | None, log: list[str]) -> tuple[str, int] | None:
    """(next action, actions left to the win) when ``log`` follows ``line``."""
    if not line:
        return None
    start, moves = int(line["offset"]), list(line["moves"])
    played = log[start:]
    if len(log) < start or len(played) >= len(moves) or moves[: len(played)] != played:
        return None
    return moves[len(played)], len(moves) - len(played)


def _answer(action: str, moves_to_win: int) -> dict[str, Any]:
    return {
        "action": action,
        "status": solver.SOLVED,
        "moves_to_win": moves_to_win,
        "message": f"{action} leads to a win in {moves_to_win} actions.",
    }


def attempt_hint(attempt: Attempt) -> dict[str, Any]:
    """The first action of a winning line from the current position (practice only), and
    ``hints_left``: a game has ``HINTS_PER_GAME`` hints (an answered hint counts, one that
    fails with 503 does not); the next ask is refused in plain words."""
    if attempt.kind != Attempt.Kind.PRACTICE:
        raise HintsNotAllowedError("Hints are for practice attempts only, not ranked ones.")
    if attempt.is_race:
        raise HintsNotAllowedError("No hints in a race: every racer plays on their own.")
    if attempt.is_over:
        raise AttemptOverError("This attempt is over: no more hints.")
    budget = settings.HINTS_PER_GAME
    if attempt.hints_used >= budget:
        raise _budget_spent(budget)
    hint = _next_action(attempt)
    # Counted only if still under the budget (two asks at once cannot both take the last).
    counted = Attempt.objects.filter(pk=attempt.pk, hints_used__lt=budget).update(
        hints_used=F("hints_used") + 1
    )
    if not counted:
        raise _budget_spent(budget)
    attempt.refresh_from_db(fields=["hints_used"])
    return {**hint, "hints_left": budget - attempt.hints_used}


def _budget_spent(budget: int) -> HintBudgetSpentError:
    return HintBudgetSpentError(
        f"You have used this game's {budget} hints.", details={"hints_per_game": budget}
    )


def _next_action(attempt: Attempt) -> dict[str, Any]:
    log = [str(action) for action in attempt.log]
    for line in (_remembered_line(attempt), {"offset": 0, "moves": attempt.deal.solution}):
        found = _next_on(line, log)
        if found is not None:
            return _answer(*found)
    if current_app.conf.task_always_eager:
        with _a_free_slot("HINT_SOLVES_PER_PROCESS"):
            return position_hint(attempt, len(log), settings.HINT_SECONDS)
    with _a_free_slot("HINT_WAITS_PER_PROCESS"):  # a waiting hint holds an HTTP thread
        return _solve_on_a_worker(attempt, len(log), settings.HINT_SECONDS)


HINT_TASK = "games.hint_solve"  # games/tasks.py: position_hint on a worker


def _solve_on_a_worker(attempt: Attempt, log_length: int, seconds: float) -> dict[str, Any]:
    wait = seconds + settings.HINT_QUEUE_SECONDS
    # (no queue named: the default queue, as for every other task)
    queue = settings.HINT_QUEUE or current_app.conf.task_default_queue
    # Sent by name: tasks call services, never the other way round.
    try:
        pending = current_app.send_task(
            HINT_TASK, args=(attempt.pk, log_length, seconds), expires=wait, queue=queue
        )
    except REDIS_DOWN:
        raise HintsBusyError(UNREACHABLE) from None
    try:
        # The worker kept the line it found in the cache, which the web processes share.
        answer: dict[str, Any] = pending.get(timeout=wait, propagate=True)
    except (CeleryTimeoutError, TaskRevokedError):  # not back in time, or expired unstarted
        raise HintsBusyError(BUSY) from None
    except REDIS_DOWN:
        raise HintsBusyError(UNREACHABLE) from None
    finally:
        with suppress(*REDIS_DOWN):
            pending.forget()
    return answer


def position_hint(attempt: Attempt, log_length: int, seconds: float) -> dict[str, Any]:
    """The hint from the position after the first ``log_length`` actions of the attempt's
    log (a log only grows, so that position is the one the hint was asked for), by a
    search; the winning line found, if any, is kept in the cache for the next hints."""
    result = solver.solve(attempt_board(attempt, log_length), seconds=seconds)
    if result.solved and result.moves:
        line = {"offset": log_length, "moves": result.moves}
        with suppress(*REDIS_DOWN):  # not remembered: the next hint searches again
            cache.set(_line_key(attempt), line, LINE_SECONDS)
        return _answer(result.moves[0], len(result.moves))
    if result.status == solver.UNSOLVABLE:
        message = "No winning line exists from this position: undo or resign."
    else:
        message = f"No hint found within the limit of {seconds:g} s."
    return {"action": None, "status": result.status, "moves_to_win": None, "message": message}
