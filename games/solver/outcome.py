"""What a search ends with: its status, and why it stopped (both are also their text)."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """docs/rules.md's solver status; ``unsolvable`` only when the search was exhaustive."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


class StopReason(StrEnum):
    """Why a search stopped, for the logs and for the staged search's next round."""

    ALREADY_WON = "already won"
    WON = "won"
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"
    NODE_LIMIT = "node limit"
    EXHAUSTED = "exhausted"
    PRUNED_EXHAUSTED = "exhausted a pruned search"
    STAGED_EXHAUSTED = "exhausted the staged schedule"
    BOOKKEEPING = "bookkeeping error: the line does not win"
