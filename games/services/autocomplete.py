"""Auto-complete: once the rest of a game is safe (every card face up, the stock dealt), the
server plays the finish for the player, as ordinary actions in the log.

Nothing is secret any more at that point (the player sees every card), so the solver may
look: it searches from the position (at most ``HINT_NODES`` positions and ``HINT_SECONDS``)
and its winning line is pushed through ``attempt_push_actions`` at the log's offset, in
batches of ``ACTIONS_MAX_BATCH``, on the server's clock like any batch (the score counts
those actions and that time). A position that is all face up is not always winnable: then
the player is told so and nothing is played. The search runs in the request, at most
``HINT_SOLVES_PER_PROCESS`` at once per server process (another answers 503 ``hints_busy``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from games import engine, solver
from games.errors import AttemptOverError, NoFinishFoundError, NotSafeToFinishError
from games.selectors import attempt_board, attempt_for_player
from games.services.attempts import attempt_close_if_day_over, attempt_push_actions
from games.services.batches import Batch
from games.services.hints import hint_solver_slot


def safe_to_finish(board: engine.Board) -> bool:
    """Every card face up and no deal left: the player sees the whole rest of the game."""
    view = engine.board_view(board)
    return board.deals_left == 0 and not view["stock"] and not any(view["face_down"])


def attempt_autocomplete(*, attempt_id: int, player: Any) -> Batch:
    """Play the winning line from the attempt's position; the last batch (the game won)."""
    attempt = attempt_close_if_day_over(attempt=attempt_for_player(attempt_id, player))
    if attempt.is_over:
        raise AttemptOverError("This attempt is over: nothing to complete.")
    board = attempt_board(attempt)
    if not safe_to_finish(board):
        raise NotSafeToFinishError(
            "Auto-complete plays on only once every card is face up and the stock is dealt."
        )
    with hint_solver_slot():
        result = solver.solve(board, seconds=settings.HINT_SECONDS, max_nodes=settings.HINT_NODES)
    if not result.solved:
        why = (
            "No winning line exists from this position: undo or resign."
            if result.status == solver.UNSOLVABLE
            else "No winning line found within the search's limit: play on."
        )
        raise NoFinishFoundError(why, details={"status": result.status})
    offset, batch = len(attempt.log), None
    step = settings.ACTIONS_MAX_BATCH
    for start in range(0, len(result.moves), step):
        chunk = result.moves[start : start + step]
        batch = attempt_push_actions(
            attempt_id=attempt.pk, player=player, offset=offset, actions=chunk
        )
        offset = batch.offset
    assert batch is not None  # a solved line from an unwon position has a move
    return batch
