"""The score and the progress of a game not won (docs/rules.md, "Scoring")."""

from __future__ import annotations

import math
from collections.abc import Sized
from dataclasses import dataclass

from .board import Board
from .replay import parse_log
from .variants import Variant

BASE = 500
PER_FOUNDATION = 100
WIN_BONUS = 50


@dataclass(frozen=True, slots=True)
class Score:
    """The score and its parts, for showing a player how it was made."""

    base: int
    actions: int
    time_penalty: int
    foundations: int
    foundation_bonus: int
    win_bonus: int
    total: int


def score_breakdown(log: Sized | int, elapsed_seconds: float, board: Board) -> Score:
    """Score ``log`` (or an action count) played in ``elapsed_seconds`` ending at ``board``.

    Every action counts, undo included; a foundation counts while it holds all 13 cards.
    """
    if isinstance(log, str):
        log = parse_log(log)  # a text log: count its actions, not its characters
    actions = log if isinstance(log, int) else len(log)
    if actions < 0:
        raise ValueError("an action count is never negative")
    if not elapsed_seconds >= 0:
        raise ValueError(
            f"elapsed time is a non-negative number of seconds, not {elapsed_seconds!r}"
        )
    time_penalty = math.floor(elapsed_seconds / 2)
    foundations = board.complete_foundations
    win_bonus = WIN_BONUS if board.is_won else 0
    raw = BASE - actions - time_penalty + PER_FOUNDATION * foundations + win_bonus
    return Score(
        base=BASE,
        actions=actions,
        time_penalty=time_penalty,
        foundations=foundations,
        foundation_bonus=PER_FOUNDATION * foundations,
        win_bonus=win_bonus,
        total=max(0, raw),
    )


def score(log: Sized | int, elapsed_seconds: float, board: Board) -> int:
    return score_breakdown(log, elapsed_seconds, board).total


def face_down_dealt(variant: Variant) -> int:
    """The deal's face-down tableau cards: every dealt card but each column's last."""
    return sum(count - 1 for count in variant.deal_counts)


def cards_turned_up(board: Board) -> int:
    """The deal's face-down tableau cards no longer face down at ``board``: the second
    measure of progress, after complete foundations, by which a game not won ranks."""
    return face_down_dealt(board.variant) - sum(down for _, down in board.iter_columns())
