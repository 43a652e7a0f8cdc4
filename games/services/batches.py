"""The decisions of one batch of actions, as a pure function: no database, no clock, no lock.

``play_batch(game, offset, actions, now)`` decides what a batch posted at ``offset`` of an
attempt's log does, from what the attempt holds (``GameSoFar``): a retry of a stored batch
(answered as the first time), a refusal (one ``GamesError``: over, not started, a stale
offset, an action the engine refuses, located at its index in the log), or the batch
accepted with the server's clock (never running back) and the position after it.

Both transports (the HTTP endpoint and the play socket) reach it through
``games.services.attempts.attempt_push_actions``, which holds the row lock, writes what was
decided and sends the signals after the commit. Tested without a database in
tests/games/test_batch_decisions.py, by properties beside the engine's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games import engine
from games.errors import (
    ActionRefusedError,
    AttemptOverError,
    NotStartedError,
    OffsetConflictError,
)


@dataclass(frozen=True)
class GameSoFar:
    """What an attempt holds when a batch arrives (under its row lock)."""

    dealt: Callable[[], engine.Board]  # a fresh board of the attempt's deal
    log: Sequence[str]
    action_times: Sequence[float]  # the server's seconds of each stored action
    started_at: dt.datetime
    over: bool
    end_reason: str = ""
    closed_why: str | None = None  # why it was closed just now (its day or time is over)
    # A position the caller already holds: (the log's length then, the board), e.g. the
    # play socket's after its last batch. A log only grows, so its length names its prefix.
    known: tuple[int, engine.Board] | None = None

    def board_at(self, upto: int) -> engine.Board:
        """The position after the first ``upto`` stored actions (through the checked path)."""
        if self.known is not None and self.known[0] == upto <= len(self.log):
            return self.known[1].copy()
        board = self.dealt()
        result = engine.replay_on(board, list(self.log[:upto]))
        if result.error is not None:  # pragma: no cover - only accepted actions are stored
            raise RuntimeError(f"the stored log does not replay: {result.error}")
        return board


@dataclass
class Batch:
    """An accepted batch of actions: the position after it and what it showed the player.

    The API renders it (its ``OutputSerializer`` reads these fields and properties); a
    retry of the same batch makes an equal one, hence the same answer.
    """

    board: engine.Board
    offset: int  # the log's length after the batch
    elapsed: float  # the server time of the batch
    revealed: list[dict[str, str]] = field(default_factory=list)
    retry: bool = False  # the batch was stored already: nothing to write

    @property
    def action_count(self) -> int:
        return self.offset

    @property
    def state(self) -> dict[str, Any]:
        return engine.board_view(self.board)

    @property
    def deals_left(self) -> int:
        return self.board.deals_left

    @property
    def runs_completed(self) -> int:
        return self.board.complete_foundations

    @property
    def elapsed_seconds(self) -> float:
        return round(self.elapsed, 3)

    @property
    def over(self) -> bool:
        return self.board.is_won

    @property
    def legal_actions(self) -> list[str]:
        return self.board.legal_actions()

    @property
    def won(self) -> bool:
        return self.board.is_won

    @property
    def score(self) -> engine.Score:
        return engine.score_breakdown(self.offset, self.elapsed, self.board)


def refusal(error: engine.MoveError) -> ActionRefusedError:
    """The engine's refusal as the API's: its index in the log, the action, the reason."""
    kind = "invalid_action" if isinstance(error, engine.InvalidMoveError) else "illegal_action"
    return ActionRefusedError(
        f"Action {error.index} ({error.action!r}) refused: {error.message}",
        code=kind,
        details={
            "index": error.index,
            "action": error.action,
            "kind": error.kind,
            "reason": error.message,
        },
    )


def _played(
    board: engine.Board, actions: Sequence[str], offset: int, elapsed: float, *, retry: bool
) -> Batch:
    """``actions`` pushed through the engine's checked path onto ``board`` (at ``offset``
    of the log), noting every card they turn face up; the first refusal raises
    ``ActionRefusedError`` at its index in the log."""
    batch = Batch(board, offset + len(actions), elapsed, retry=retry)
    for i, action in enumerate(actions):
        try:
            played = board.play(action)
        except engine.MoveError as error:
            raise refusal(error.at(offset + i)) from None
        batch.revealed += played.revealed_texts()
    return batch


def batch_clock(game: GameSoFar, now: dt.datetime) -> float:
    """The server's seconds of a batch arriving at ``now``: from the start, never before
    the last stored action's, rounded as stored (so that a retry's answer is the same)."""
    elapsed = max(0.0, (now - game.started_at).total_seconds())
    if game.action_times:
        elapsed = max(elapsed, float(game.action_times[-1]))
    return round(elapsed, 6)


def play_batch(game: GameSoFar, offset: int, actions: Sequence[str], now: dt.datetime) -> Batch:
    """What a batch of ``actions`` posted at ``offset`` at ``now`` does to ``game``.

    - the same actions already stored at ``offset``: a retry (``retry`` set), the answer
      of the first time, even after the game ended;
    - the game over: ``AttemptOverError`` (with why, when it was closed just now);
    - before its start signal (a race): ``NotStartedError`` with the seconds to wait;
    - ``offset`` other than the log's length: ``OffsetConflictError`` with the length;
    - the first action the engine refuses: ``ActionRefusedError`` (nothing is accepted);
    - else the batch, accepted at the server's clock.
    """
    stored = len(game.log)
    actions = list(actions)
    if offset < stored and list(game.log[offset : offset + len(actions)]) == actions:
        elapsed = float(game.action_times[offset + len(actions) - 1])
        return _played(game.board_at(offset), actions, offset, elapsed, retry=True)
    if game.over:
        raise AttemptOverError(
            game.closed_why or "This attempt is over: no more actions.",
            details={"offset": stored, "end_reason": game.end_reason},
        )
    if now < game.started_at:
        wait = (game.started_at - now).total_seconds()
        raise NotStartedError(
            f"The race starts in {wait:.1f} s: no action before the start signal.",
            details={"starts_at": game.started_at.isoformat(), "seconds": round(wait, 3)},
        )
    if offset != stored:
        raise OffsetConflictError(
            f"The attempt holds {stored} actions: a batch at offset {offset} is stale or "
            "ahead. Fetch the attempt and continue from its offset.",
            details={"offset": stored},
        )
    return _played(game.board_at(stored), actions, offset, batch_clock(game, now), retry=False)
