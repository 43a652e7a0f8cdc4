"""Small hand-built positions for the rules tests.

Columns are written as strings, bottom card first: ``"9D 4S KH"`` has KH on top.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from games.engine import (
    VARIANTS,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    board_from_state,
    board_state,
)

RANKS = "A23456789TJQK"
# docs/rules.md's variant table, written independently of games.engine.variants
SUITS_OF = {"astrocyte": "SHDC", "spider1": "S", "spider2": "SH", "spider4": "SHDC"}


def run(suit: str, high: str = "K", low: str = "A") -> str:
    """A one-suit descending run as a column string: ``run("S", "5", "3") == "5S 4S 3S"``."""
    top, bottom = RANKS.index(high), RANKS.index(low)
    return " ".join(RANKS[r] + suit for r in range(top, bottom - 1, -1))


def build(
    variant: str = "astrocyte",
    tableau: list[str] | None = None,
    face_down: list[int] | None = None,
    cells: list[str | None] | None = None,
    foundations: list[str] | None = None,
    stock: str = "",
) -> Board:
    """A board from short descriptions; missing columns, cells and foundations are empty."""
    v = VARIANTS[variant]
    columns = [col.split() for col in (tableau or [])]
    columns += [[] for _ in range(v.columns - len(columns))]
    downs = list(face_down or [])
    downs += [0] * (v.columns - len(downs))
    cell_list = list(cells or [])
    cell_list += [None] * (v.cells - len(cell_list))
    piles = [f.split() for f in (foundations or [])]
    piles += [[] for _ in range(v.foundations - len(piles))]
    return board_from_state(
        {
            "variant": variant,
            "tableau": columns,
            "face_down": downs,
            "cells": cell_list,
            "foundations": piles,
            "stock": stock.split(),
            "won": False,
        }
    )


def columns(board: Board) -> list[str]:
    """The tableau as column strings (the inverse of ``build``'s tableau)."""
    return [" ".join(col) for col in board_state(board)["tableau"]]


def all_cards(board: Board) -> Counter[str]:
    """Every card of the position, wherever it is (tableau, cells, foundations, stock)."""
    state = board_state(board)
    cards: Counter[str] = Counter()
    for col in state["tableau"]:
        cards.update(col)
    cards.update(c for c in state["cells"] if c is not None)
    for pile in state["foundations"]:
        cards.update(pile)
    cards.update(state["stock"])
    return cards


def full_pack(variant: str) -> Counter[str]:
    """The 104 cards of a variant, counted independently of the engine."""
    suits = SUITS_OF[variant]
    copies = 8 // len(suits)
    return Counter(r + s for _ in range(copies) for s in suits for r in RANKS)


def state_of(board: Board) -> dict[str, Any]:
    return board_state(board)


def play(board: Board, text: str) -> None:
    """Apply ``text`` through the checked path, after checking legal_actions() offers it."""
    assert text in board.legal_actions(), f"{text} not offered: {board.legal_actions()}"
    assert board.refusal(Move.parse(text, board.variant)) is None
    board.push_text(text)


def played_and_undone(board: Board, text: str) -> dict[str, Any]:
    """Play ``text``, then undo it (both offered, through the checked path); checks that the
    undo gives back the position before exactly, and returns the state ``text`` led to."""
    before = board_state(board)
    play(board, text)
    after = board_state(board)
    play(board, "undo")
    assert board_state(board) == before
    return after


def refuse(board: Board, text: Any, kind: str = "illegal", match: str | None = None) -> str:
    """Check that ``text`` is refused with ``kind``, leaves the board as it was, and is not
    offered; return the message."""
    before = board_state(board)
    stack_before = board.move_stack
    error = InvalidMoveError if kind == "invalid" else IllegalMoveError
    with pytest.raises(error) as caught:
        board.push_text(text)
    assert caught.value.kind == kind
    assert caught.value.action == text
    assert isinstance(caught.value, ValueError)
    if match is not None:
        assert re.search(match, caught.value.message), caught.value.message
    assert board_state(board) == before
    assert board.move_stack == stack_before
    assert text not in board.legal_actions()
    return caught.value.message
