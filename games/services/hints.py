"""Hints for practice attempts: the next action of a known winning line; a step back onto
one when the player has just left it; the solver only when neither is at hand.

Known winning lines are *paths* from the deal's start (games/services/hint_lines.py): the
deal's verified solution, and the last line a search found for this attempt (in the cache,
per attempt). While the player's actions in force (undone ones gone) follow a path, the
hint is its next action: no search. A player who left every path by a move or two of
their own gets, from a search bounded in nodes (``hint_lines.rejoin``, milliseconds), the
step onto a path's position (a move of the path's own, or undo), and the path from
there is kept. Otherwise the solver searches, at most ``HINT_NODES`` positions (the same
hint on any machine) and ``HINT_SECONDS``:

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
from games.selectors import attempt_board, deal_board
from games.services.hint_lines import actions_in_force, known_win, next_on

LINE_SECONDS = 6 * 3600  # a practice game left for longer solves again
BUSY = "The hint solver is busy with other players' positions: ask again in a moment."
UNREACHABLE = "The hint solver cannot be reached right now: ask again in a moment."
# What the cache (Redis) or the broker raise when Redis is down: a hint then needs no
# remembered line (one is searched for, or the hint is 503), never a 500.
REDIS_DOWN = (RedisError, OSError, BrokerError)


def _remembered_path(attempt: Attempt) -> list[str] | None:
    try:
        kept = cache.get(_line_key(attempt))
    except REDIS_DOWN:
        return None
    return list(kept["path"]) if isinstance(kept, dict) and "path" in kept else None


def _remember_path(attempt: Attempt, path: list[str]) -> None:
    with suppress(*REDIS_DOWN):  # not remembered: the next hint looks again
        cache.set(_line_key(attempt), {"path": path}, LINE_SECONDS)


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
    return f"hint-path:{attempt.pk}:{attempt.deal_id}:{attempt.started_at.timestamp()}"


def _answer(action: str, moves_to_win: int) -> dict[str, Any]:
    if action == "undo":
        message = f"Undo your last action: a win in {moves_to_win} actions, the undo included."
    else:
        message = f"{action} leads to a win in {moves_to_win} actions."
    return {
        "action": action,
        "status": solver.SOLVED,
        "moves_to_win": moves_to_win,
        "message": message,
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
    paths = [path for path in (_remembered_path(attempt), attempt.deal.solution) if path]
    log = [str(action) for action in attempt.log]
    for path in paths:  # a log without undo is its own actions in force: no replay needed
        found = next_on(path, log)
        if found is not None:
            return _answer(*found)
    known = known_win(attempt_board(attempt), deal_board(attempt.deal), paths)
    if known is not None:
        if known.new_path is not None:
            _remember_path(attempt, list(known.new_path))
        return _answer(known.action, known.moves_to_win)
    if current_app.conf.task_always_eager:
        with _a_free_slot("HINT_SOLVES_PER_PROCESS"):
            return position_hint(attempt, len(log), settings.HINT_SECONDS, settings.HINT_NODES)
    with _a_free_slot("HINT_WAITS_PER_PROCESS"):  # a waiting hint holds an HTTP thread
        return _solve_on_a_worker(attempt, len(log), settings.HINT_SECONDS, settings.HINT_NODES)


HINT_TASK = "games.hint_solve"  # games/tasks.py: position_hint on a worker


def _solve_on_a_worker(
    attempt: Attempt, log_length: int, seconds: float, nodes: int
) -> dict[str, Any]:
    wait = seconds + settings.HINT_QUEUE_SECONDS
    # (no queue named: the default queue, as for every other task)
    queue = settings.HINT_QUEUE or current_app.conf.task_default_queue
    # Sent by name: tasks call services, never the other way round.
    try:
        pending = current_app.send_task(
            HINT_TASK, args=(attempt.pk, log_length, seconds, nodes), expires=wait, queue=queue
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


def position_hint(
    attempt: Attempt, log_length: int, seconds: float, nodes: int | None
) -> dict[str, Any]:
    """The hint from the position after the first ``log_length`` actions of the attempt's
    log (a log only grows, so that position is the one the hint was asked for), by a
    search of at most ``nodes`` positions and ``seconds``; the winning line found, if any,
    is kept in the cache for the next hints."""
    board = attempt_board(attempt, log_length)
    # a player's position, where a deal waiting for an empty column is common (solve's doc)
    result = solver.solve(board, seconds=seconds, max_nodes=nodes, fill_for_deal=True)
    if result.solved and result.moves:
        _remember_path(attempt, actions_in_force(board) + list(result.moves))
        return _answer(result.moves[0], len(result.moves))
    if result.status == solver.UNSOLVABLE:
        message = "No winning line exists from this position: undo or resign."
    else:
        message = "No hint found within the search's limit: play on."
    return {"action": None, "status": result.status, "moves_to_win": None, "message": message}
