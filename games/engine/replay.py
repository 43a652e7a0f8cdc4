"""Reading a move log and replaying it through the checked path."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .board import Board
from .errors import LogFormatError, MoveError
from .state import board_state
from .variants import Variant


def parse_log(log: str | list[Any]) -> list[Any]:
    """The actions of a log: whitespace-separated text, or a JSON list (text starting with ``[``).

    Items are returned as given; a non-string item of a JSON log is refused as invalid when
    it is replayed, at its index. :class:`LogFormatError` if the JSON cannot be read.
    """
    if isinstance(log, list):
        return log
    text = log.strip()
    if not text.startswith("["):
        return text.split()
    try:
        actions = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"the log starts with '[' but is not valid JSON: {exc}") from None
    if not isinstance(actions, list):
        raise LogFormatError("a JSON log is a list of action strings")
    return actions


@dataclass(slots=True)
class ReplayResult:
    board: Board
    actions: int
    applied: int
    error: MoveError | None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def won(self) -> bool:
        return self.board.is_won

    def as_dict(self) -> dict[str, Any]:
        """docs/rules.md's replay object: ok, applied, won, actions, error, state."""
        return {
            "ok": self.ok,
            "applied": self.applied,
            "won": self.won,
            "actions": self.actions,
            "error": None if self.error is None else self.error.as_dict(),
            "state": board_state(self.board),
        }


def replay_on(board: Board, actions: list[Any], first_index: int = 0) -> ReplayResult:
    """Apply ``actions`` to ``board`` in order, stopping at the first refused one.

    Error indexes count from ``first_index`` (the offset of ``actions`` in a longer log).
    """
    push_text = board.push_text
    for index, action in enumerate(actions):
        try:
            push_text(action)
        except MoveError as error:
            return ReplayResult(board, len(actions), index, error.at(first_index + index))
    return ReplayResult(board, len(actions), len(actions), None)


def replay(variant: Variant | str, seed: int, log: str | list[Any]) -> ReplayResult:
    """Deal ``(variant, seed)`` and replay ``log`` on it (docs/rules.md, "The command line")."""
    return replay_on(Board.deal(variant, seed), parse_log(log))
