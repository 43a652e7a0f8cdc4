"""Hints for practice attempts: the next action of a known winning line, the solver only
when the player has left every line known.

A winning line from a position gives the hint for every position along it, so a line is
kept (in the cache, per attempt: the log's length where it starts and its actions) and
the deal's own verified solution is a line from the start. While the player's log
follows a line, the hint is its next action: no search. Otherwise the solver runs in the
request, with its time limit (``HINT_SECONDS``), at most ``HINT_SOLVES_PER_PROCESS`` at
once per server process: a search is pure-Python CPU work that holds the interpreter,
so more of them would starve the process's other requests; a hint asked while the
process is busy answers 503 ``hints_busy`` at once instead of queueing.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache

from games import solver
from games.errors import AttemptOverError, HintsBusyError, HintsNotAllowedError
from games.models import Attempt
from games.selectors import attempt_board

LINE_SECONDS = 6 * 3600  # a practice game left for longer solves again

_solving: threading.BoundedSemaphore | None = None
_solving_lock = threading.Lock()


def _solve_slots() -> threading.BoundedSemaphore:
    global _solving
    with _solving_lock:
        if _solving is None:
            _solving = threading.BoundedSemaphore(max(1, settings.HINT_SOLVES_PER_PROCESS))
        return _solving


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
    """The first action of a winning line from the current position (practice only)."""
    if attempt.kind != Attempt.Kind.PRACTICE:
        raise HintsNotAllowedError("Hints are for practice attempts only, not ranked ones.")
    if attempt.is_over:
        raise AttemptOverError("This attempt is over: no more hints.")
    log = [str(action) for action in attempt.log]
    for line in (cache.get(_line_key(attempt)), {"offset": 0, "moves": attempt.deal.solution}):
        found = _next_on(line, log)
        if found is not None:
            return _answer(*found)
    slots = _solve_slots()
    if not slots.acquire(blocking=False):
        raise HintsBusyError(
            "The hint solver is busy with other players' positions: ask again in a moment."
        )
    try:
        result = solver.solve(attempt_board(attempt), seconds=settings.HINT_SECONDS)
    finally:
        slots.release()
    if result.solved and result.moves:
        cache.set(_line_key(attempt), {"offset": len(log), "moves": result.moves}, LINE_SECONDS)
        return _answer(result.moves[0], len(result.moves))
    if result.status == solver.UNSOLVABLE:
        message = "No winning line exists from this position: undo or resign."
    else:
        message = f"No hint found within the limit of {settings.HINT_SECONDS:g} s."
    return {"action": None, "status": result.status, "moves_to_win": None, "message": message}
