"""The engine's two refusals: text that is not an action, and an action the rules refuse."""

from __future__ import annotations

from typing import Any


class MoveError(ValueError):
    """Base of both refusals. Carries the action as given, its index in a log and a reason."""

    kind = "error"

    def __init__(self, action: Any, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.action = action
        self.message = message
        self.index = index

    def at(self, index: int) -> MoveError:
        """The same refusal, located at ``index`` in a log."""
        self.index = index
        return self

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "action": self.action,
            "kind": self.kind,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = f"action {self.index} " if self.index is not None else ""
        return f"{where}{self.action!r}: {self.message}"


class InvalidMoveError(MoveError):
    """The text is not an action of the notation for this variant (needs no position)."""

    kind = "invalid"


class IllegalMoveError(MoveError):
    """A well-formed action that the rules refuse in the current position."""

    kind = "illegal"


class LogFormatError(ValueError):
    """A move log that cannot be read at all (broken JSON, or JSON that is not a list)."""
