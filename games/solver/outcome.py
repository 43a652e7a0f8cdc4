"""What a search ends with: its status, and why it stopped (both are also their text); what
the complete search ends with (compiled modules import it: mypyc cannot build a generic
frozen dataclass with slots)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

M = TypeVar("M")


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


@dataclass(frozen=True, slots=True)
class Exhaustion(Generic[M]):
    """What :func:`complete.exhaust` found: a winning line, a proof of loss (``exhausted``), or
    neither (the budget ran out). ``nodes``: classes expanded, the start included."""

    moves: list[M] | None
    exhausted: bool
    nodes: int

    @property
    def won(self) -> bool:
        return self.moves is not None
