"""Making a winning line shorter, re-checking every candidate with the engine.

Three passes, repeated while one of them helps and time remains:

1. *Loops*: a position met twice (the engine's exact ``position_key``) means everything in
   between was a detour (a card moved and moved back); cut it.
2. *Shortcuts*: when one legal move from position i reaches a position the line meets later
   at j > i + 1, the moves i..j-1 become that one move.
3. *Deletions*: drop one move when the rest of the line is still legal and still wins
   (checked with ``Board.refusal``, the engine's own check), e.g. a cell visit that achieves
   nothing.

Each pass only returns a line that the engine has replayed to a win from the start.
"""

from __future__ import annotations

import time
from typing import Any

from games.engine import Board, Move


def _positions(start: Board, moves: list[Move]) -> list[tuple[Any, ...]]:
    board = start.copy()
    keys = [board.position_key()]
    for move in moves:
        board.push(move)
        keys.append(board.position_key())
    return keys


def _wins(start: Board, moves: list[Move]) -> bool:
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
        if time.perf_counter() < deadline:
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
    while i < len(result) and time.perf_counter() < deadline:
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


def shorten(start: Board, moves: list[Move], deadline: float) -> list[Move]:
    """A winning line from ``start`` no longer than ``moves`` (which must win)."""
    best = list(moves)
    while time.perf_counter() < deadline:
        candidate = cut_loops(start, best)
        candidate = take_shortcuts(start, candidate, deadline)
        candidate = drop_useless(start, candidate, deadline)
        if len(candidate) >= len(best) or not _wins(start, candidate):
            break
        best = candidate
    return best
