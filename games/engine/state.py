"""Positions as docs/rules.md's State JSON, both ways, and the player's view of it."""

from __future__ import annotations

import json
from typing import Any

from .board import RUN, Board, run_length
from .cards import RANK_MASK, TEXT_TO_CODE
from .variants import get_variant

STATE_KEYS = ("variant", "tableau", "face_down", "cells", "foundations", "stock", "won")


def board_state(board: Board) -> dict[str, Any]:
    """The full position (face-down and stock cards shown): for the server and the solver."""
    return board.state()


def board_view(board: Board) -> dict[str, Any]:
    """What a player may see: the same object with face-down and stock cards as null."""
    return board.view()


def state_json(board: Board) -> str:
    return json.dumps(board_state(board))


class StateError(ValueError):
    """A State JSON object that does not describe a position; the message says where."""


def board_from_state(state: dict[str, Any]) -> Board:
    """A board holding the full position ``state`` (as printed by ``deal`` or ``replay``).

    The move stack is empty: the position is taken as given. Card counts are not checked,
    so hand-built positions may hold fewer cards than a game.
    """
    if not isinstance(state, dict):
        raise StateError("a state is a JSON object")
    try:
        variant = get_variant(state.get("variant"))
    except ValueError as exc:
        raise StateError(f"variant: {exc}") from None
    tableau = [_cards(col, f"tableau[{i}]") for i, col in enumerate(_list(state, "tableau"))]
    if len(tableau) != variant.columns:
        raise StateError(f"tableau: {variant.id} has {variant.columns} columns, not {len(tableau)}")
    face_down = _list(state, "face_down")
    if len(face_down) != len(tableau):
        raise StateError("face_down: one count a column")
    for i, (col, down) in enumerate(zip(tableau, face_down, strict=True)):
        if isinstance(down, bool) or not isinstance(down, int) or down < 0:
            raise StateError(f"face_down[{i}]: a count of cards, not {down!r}")
        if (col and down >= len(col)) or (not col and down):
            raise StateError(f"face_down[{i}]: the top card of a column is face up")
    cells_in = _list(state, "cells")
    if len(cells_in) != variant.cells:
        raise StateError(f"cells: {variant.id} has {variant.cells} cells, not {len(cells_in)}")
    cells = [0 if c is None else _cards([c], f"cells[{i}]")[0] for i, c in enumerate(cells_in)]
    foundations = [
        _cards(f, f"foundations[{i}]") for i, f in enumerate(_list(state, "foundations"))
    ]
    if len(foundations) != variant.foundations:
        raise StateError(f"foundations: there are {variant.foundations}, not {len(foundations)}")
    for i, f in enumerate(foundations):
        if f and (len(f) > RUN or run_length(f, 0) != len(f) or f[0] & RANK_MASK != RUN):
            raise StateError(
                f"foundations[{i}]: a foundation holds a run of one suit from the King down"
            )
    stock = _cards(_list(state, "stock"), "stock")
    if len(stock) % variant.columns:
        raise StateError(f"stock: a whole number of deals of {variant.columns} cards")
    return Board(variant, tableau, list(face_down), cells, foundations, stock)


def _list(state: dict[str, Any], key: str) -> list[Any]:
    value = state.get(key)
    if not isinstance(value, list):
        raise StateError(f"{key}: expected a list")
    return value


def _cards(values: Any, where: str) -> list[int]:
    if not isinstance(values, list):
        raise StateError(f"{where}: expected a list of cards")
    codes = []
    for i, value in enumerate(values):
        code = TEXT_TO_CODE.get(value) if isinstance(value, str) else None
        if code is None:
            raise StateError(f"{where}[{i}]: not a card: {value!r}")
        codes.append(code)
    return codes


__all__ = [
    "STATE_KEYS",
    "StateError",
    "board_from_state",
    "board_state",
    "board_view",
    "state_json",
]
