"""A game lost by play that goes wrong, for the analysis's tests: Astrocyte deal 4 (its
stored winning line: tests/data/solutions.json), the line's first actions, then the stock
dealt as soon as it can be, else a card into a free cell, else the first legal move.

Why so: a move and its way back lose nothing, so a game of first legal moves is still
winnable at its end (the analysis finds it so); dealing the stock at once and filling the
cells loses this deal within a few actions, where the analysis finds a winnable position
followed by one it cannot win."""

from __future__ import annotations

from games import engine

LOST_VARIANT = "astrocyte"
LOST_SEED = 4
KEPT = 10  # actions of the winning line first: positions the analysis finds winnable
PLAYED = 60  # then this many going wrong


def losing_log(
    board: engine.Board, solution: list[str], kept: int = KEPT, played: int = PLAYED
) -> list[str]:
    """The actions of the lost game from ``board`` (deal 4's start), played on it."""
    log = list(solution[:kept])
    for action in log:
        board.push_text(action)
    for _ in range(played):
        moves = board.legal_moves()
        if not moves or board.is_won:
            break
        deals = [m for m in moves if str(m) == "deal"]
        to_cells = [m for m in moves if str(m).split("-")[-1].startswith("c")]
        move = (deals or to_cells or moves)[0]
        board.push(move)
        log.append(str(move))
    return log
