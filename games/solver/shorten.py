"""Making a winning line shorter, re-checking every candidate with the engine.

Passes, repeated while one of them helps and time remains:

1. *Loops*: a position met twice (the engine's exact ``position_key``) means everything in
   between was a detour (a card moved and moved back); cut it.
2. *Shortcuts*: when one legal move from position i reaches a position the line meets later
   at j > i + 1, the moves i..j-1 become that one move.
   With ``thorough``, also two moves from i reaching j > i + 2 (a depth-2 re-search).
   *Windows*: each window of 12 moves (20 with ``thorough``) re-searched for a shorter way
   to exactly its last position (``window.py``).
3. *Deletions by card*: drop one move and replay the rest by card identity
   (``tracking.py``), so that a later move of the same cards starts from where they were:
   a card parked on the way goes straight to its place.
4. *Deletions*: drop one move when the rest of the line is still legal and still wins
   (checked with ``Board.refusal``, the engine's own check), e.g. a cell visit that achieves
   nothing.

Each pass only returns a line that the engine has replayed to a win from the start.
"""

from __future__ import annotations

from typing import Any

from games.engine import Board, Move

from .clock import now
from .tracking import Tracked, describe_line, play_steps
from .window import line_key, shorten_windows


def _positions(start: Board, moves: list[Move]) -> list[tuple[Any, ...]]:
    board = start.copy()
    keys = [board.position_key()]
    for move in moves:
        board.push(move)
        keys.append(board.position_key())
    return keys


def wins(start: Board, moves: list[Move]) -> bool:
    board = start.copy()
    for move in moves:
        if board.refusal(move) is not None:
            return False
        board.push(move)
    return board.is_won


def cut_loops(start: Board, moves: list[Move]) -> list[Move]:
    keys = _positions(start, moves)
    last = {key: index for index, key in enumerate(keys)}
    result: list[Move] = []
    i = 0
    while i < len(moves):
        j = last[keys[i]]
        if j > i:
            i = j
            continue
        result.append(moves[i])
        i += 1
    return result


def take_shortcuts(start: Board, moves: list[Move], deadline: float) -> list[Move]:
    keys = _positions(start, moves)
    last = {key: index for index, key in enumerate(keys)}
    board = start.copy()
    result: list[Move] = []
    i = 0
    while i < len(moves):
        best_j, best_move = i + 1, moves[i]
        if now() < deadline:
            for move in board.legal_moves():
                board.push(move)
                j = last.get(board.position_key(), -1)
                board.pop()
                if j > best_j:
                    best_j, best_move = j, move
        board.push(best_move)
        result.append(best_move)
        i = best_j
    return result


def drop_useless(start: Board, moves: list[Move], deadline: float) -> list[Move]:
    result = list(moves)
    prefix = start.copy()  # the position before result[i]
    i = 0
    while i < len(result) and now() < deadline:
        candidate = result[:i] + result[i + 1 :]
        board = prefix.copy()
        ok = True
        for move in candidate[i:]:
            if board.refusal(move) is not None:
                ok = False
                break
            board.push(move)
        if ok and board.is_won:
            result = candidate
            continue
        prefix.push(result[i])
        i += 1
    return result


# The improve phase's windows: longer, with more positions each (a few seconds a line).
THOROUGH_WINDOWS = {"window": 20, "step": 10, "budget": 10_000}


def shorten(
    start: Board,
    moves: list[Move],
    deadline: float,
    *,
    thorough: bool = False,
    quick: bool = False,
) -> list[Move]:
    """A winning line from ``start`` no longer than ``moves`` (which must win).

    ``thorough`` adds the depth-2 re-search between positions (``two_move_shortcuts``)
    and re-searches longer windows of the line (``window.py``), a few seconds on a 200-move
    line: for the improve phase, not for hints. ``quick`` only cuts loops and takes
    one-move shortcuts (milliseconds): for a line the improve phase will replace or
    shorten thoroughly anyway.
    """
    best = list(moves)
    if quick:
        candidate = take_shortcuts(start, cut_loops(start, best), deadline)
        return candidate if len(candidate) < len(best) and wins(start, candidate) else best
    while now() < deadline:
        candidate = cut_loops(start, best)
        candidate = take_shortcuts(start, candidate, deadline)
        if thorough:
            candidate = two_move_shortcuts(start, candidate, deadline)
            candidate = shorten_windows(start, candidate, deadline, **THOROUGH_WINDOWS)
        else:
            candidate = shorten_windows(start, candidate, deadline)
        candidate = drop_by_identity(start, candidate, deadline)
        candidate = drop_useless(start, candidate, deadline)
        if len(candidate) >= len(best) or not wins(start, candidate):
            break
        best = candidate
    return best


def drop_by_identity(start: Board, moves: list[Move], deadline: float) -> list[Move]:
    """Drop one move at a time, replaying the rest by card identity (``tracking``): a card
    moved twice (t1 to t3, later t3 to t7) can go straight to its second place, a cell visit
    becomes a direct move, a group parked on the way goes where it was going."""
    steps = describe_line(start, moves)
    prefix = Tracked(start)
    result: list[Move] = []
    i = 0
    while i < len(steps):
        if now() < deadline:
            trial = prefix.copy()
            rest = play_steps(trial, steps[i + 1 :])
            if rest is not None and trial.board.is_won:
                steps = steps[:i] + steps[i + 1 : i + 1 + len(rest)]
                continue
        move = prefix.resolve(steps[i])
        if move is None:  # cannot happen: steps[i] was played from this position before
            return moves
        prefix.push(move)
        result.append(move)
        i += 1
    return result


def two_move_shortcuts(start: Board, moves: list[Move], deadline: float) -> list[Move]:
    """Where two legal moves from position i reach a position the line meets at j > i + 2,
    the moves i..j-1 become those two (a bounded breadth-first re-search of depth 2
    between positions of the line; depth 1 is ``take_shortcuts``)."""
    board = start.copy()
    keys = [line_key(board)]
    for move in moves:
        board.push(move)
        keys.append(line_key(board))
    last = {key: index for index, key in enumerate(keys)}
    board = start.copy()
    result: list[Move] = []
    i = 0
    while i < len(moves):
        best_j, best_pair = i + 2, None
        if now() < deadline and i + 3 <= len(moves):
            for first in board.legal_moves():
                board.push(first)
                for second in board.legal_moves():
                    board.push(second)
                    j = last.get(line_key(board), -1)
                    board.pop()
                    if j > best_j:
                        best_j, best_pair = j, (first, second)
                board.pop()
        if best_pair is None:
            board.push(moves[i])
            result.append(moves[i])
            i += 1
            continue
        for move in best_pair:
            board.push(move)
            result.append(move)
        i = best_j
    return result
