"""The order of a board (docs/rules.md, "How boards rank"), in one place for SQL and Python.

Won attempts first; then progress, complete foundations (runs home) and then cards turned
up, more first; then score, higher first; elapsed time, shorter first; and the moment the
attempt ended, earlier first. A won game has every run home and every card turned up, so
one order serves won games and the rest: giving up early never ranks above having played
further. An attempt that ended with no action is not ranked (it is on no board).
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, OrderBy

from games.models import Attempt

# (field, higher first) in the board's order.
RANK_FIELDS: tuple[tuple[str, bool], ...] = (
    ("won", True),
    ("runs_completed", True),
    ("cards_turned_up", True),
    ("score", True),
    ("elapsed_seconds", False),
    ("ended_at", False),
)

BOARD_ORDER: tuple[OrderBy, ...] = tuple(
    F(name).desc() if higher_first else F(name).asc() for name, higher_first in RANK_FIELDS
)


def rank_key(attempt: Attempt) -> tuple[Any, ...]:
    """A sort key in the board's order for ended attempts held in memory (a race's results);
    those ended without an action come last, as they are not ranked."""
    ended = attempt.ended_at.timestamp() if attempt.ended_at else float("inf")
    return (
        0 if attempt.action_count > 0 else 1,
        not attempt.won,
        -attempt.runs_completed,
        -attempt.cards_turned_up,
        -(attempt.score or 0),
        attempt.elapsed_seconds or 0.0,
        ended,
    )
