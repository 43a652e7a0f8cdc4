"""Small hand-built positions for the complete search's tests, and a brute force to check it
(and, last, an endgame where a deal waits for an empty column, for the heuristic searches).

A position is seven complete foundations and the eighth run's 13 cards in play, cut into a
few in-suit pieces, among loose cards of the variant ("junk": cards are values, so a junk
card may repeat one of the run's; a position is won once the eighth run is home, whatever
junk is left). The brute force enumerates every position reachable from it by its exact
``position_key``: no canonical form, no pruning, every legal move.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine import Board, Move, board_from_state
from games.engine.cards import RANKS
from games.engine.variants import get_variant


def small_position(
    variant: str, seed: int, *, pieces: int, junk: int, free_cells: int = 0, deals: int = 0
) -> Board:
    """The position of ``seed``: the run in ``pieces`` pieces, ``junk`` loose cards, the
    cells full but ``free_cells``, ``deals`` deals of loose cards in the stock, every column
    holding a card, a random number of each column's cards face down."""
    rng = random.Random(seed)
    game = get_variant(variant)

    def loose() -> str:
        return rng.choice(RANKS) + rng.choice(game.suits)

    suit = rng.choice(game.suits)
    run = [rank + suit for rank in reversed(RANKS)]
    cuts = sorted(rng.sample(range(1, len(run)), pieces - 1))
    units = [run[a:b] for a, b in zip([0, *cuts], [*cuts, len(run)], strict=True)]
    units += [[loose()] for _ in range(junk)]
    rng.shuffle(units)
    stock = [loose() for _ in range(deals * game.columns)]
    cells: list[str | None] = [None] * game.cells
    for i in range(free_cells, game.cells):
        single = next((unit for unit in units if len(unit) == 1), None)
        if single is not None:
            units.remove(single)
            cells[i] = single[0]
    columns: list[list[str]] = [[] for _ in range(game.columns)]
    for i, unit in enumerate(units):
        columns[i if i < game.columns else rng.randrange(game.columns)] += unit
    face_down = [rng.randrange(len(column)) if column else 0 for column in columns]
    homes = [[rank + rng.choice(game.suits)] for rank in "K" * 7]
    foundations = [[rank + home[0][1] for rank in reversed(RANKS)] for home in homes]
    state: dict[str, Any] = {
        "variant": variant,
        "tableau": columns,
        "face_down": face_down,
        "cells": cells,
        "foundations": [*foundations, []],
        "stock": stock,
        "won": False,
    }
    return board_from_state(state)


class TooLarge(Exception):
    """More reachable positions than the brute force was allowed to enumerate."""


def brute_force_winnable(start: Board, cap: int) -> bool:
    """Whether some reachable position is won, by enumerating every reachable position
    (exact keys, every legal move, depth first in the engine's order); :class:`TooLarge`
    past ``cap`` of them."""
    board = start.copy(keep_history=False)
    if board.is_won:
        return True
    seen = {board.position_key()}
    pending = [_in_engine_order(board)]
    while pending:
        if not pending[-1]:
            pending.pop()
            if pending:
                board.pop()
            continue
        board.push(pending[-1].pop())
        if board.is_won:
            return True
        key = board.position_key()
        if key in seen:
            board.pop()
            continue
        if len(seen) >= cap:
            raise TooLarge(cap)
        seen.add(key)
        pending.append(_in_engine_order(board))
    return False


def _in_engine_order(board: Board) -> list[Move]:
    """The legal moves, to be popped in the engine's own order (its first move first)."""
    return board.legal_moves()[::-1]


SPADES = ["KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S", "AS"]


def position_where_a_deal_waits(variant: str) -> Board:
    """Six runs home, nothing face down, the last deal in the stock and one column empty.

    To deal, a run must be split into the empty column, a move that makes no progress of its
    own (the focused search's filter refuses it: docs/solver.md, "Pruning"); then the dealt
    small cards all go onto the split pieces (a human finishes in about 25 moves)."""
    state: dict[str, Any] = {
        "variant": variant,
        "tableau": [SPADES[:8]] + [[card] for card in SPADES[:8]] + [[]],
        "face_down": [0] * 10,
        "cells": [],
        "foundations": [SPADES] * 6 + [[], []],
        "stock": ["5S", "5S", "4S", "4S", "3S", "3S", "2S", "2S", "AS", "AS"],
        "won": False,
    }
    return board_from_state(state)
