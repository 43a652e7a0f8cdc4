"""Compound steps (joins and digs): always legal lines, and the board is left as it was."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Board, board_from_state
from games.solver import solve
from games.solver.macros import macro_children


def _astrocyte(tableau: list[list[str]], face_down: list[int], cells: list[str | None]) -> Board:
    state: dict[str, Any] = {
        "variant": "astrocyte",
        "tableau": tableau,
        "face_down": face_down,
        "cells": cells,
        "foundations": [[] for _ in range(8)],
        "stock": [],
        "won": False,
    }
    return board_from_state(state)


def _texts(board: Board) -> list[list[str]]:
    return [[str(move) for move in played] for played in macro_children(board)]


@pytest.mark.parametrize(("variant", "seed"), [("astrocyte", 4), ("spider2", 10)])
def test_every_macro_is_a_legal_line_and_the_board_is_restored(variant: str, seed: int) -> None:
    # the positions along a winning line: plenty to dig and to join
    result = solve((variant, seed), seconds=30)
    assert result.solved
    board = Board.deal(variant, seed)
    count = 0
    for index, text in enumerate(result.moves):
        if index % 5 == 0:
            before = board.position_key()
            start = board.copy()
            for played in macro_children(board):
                count += 1
                assert len(played) >= 2
                check = start.copy()
                for move in played:
                    check.push_text(str(move))  # the engine's checked path
                assert check.position_key() == board.position_key()
            assert board.position_key() == before
        board.push_text(text)
    assert count > 0


def test_a_join_puts_the_covering_card_aside_first() -> None:
    # 5H lies under 9C; 4H can join it once 9C is in a cell
    board = _astrocyte(
        [["KS", "5H", "9C"], ["QD", "4H"], ["JC"], ["2H"], ["8S"], ["7D"], ["6C"], ["3S"]],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [None, None, None, None],
    )
    assert ["t1-c1", "t2-t1"] in _texts(board)


def test_a_dig_turns_the_next_card_over() -> None:
    # two segments above a face-down card: 8H-7H goes on the 9C, the JS on the QD
    board = _astrocyte(
        [["2D", "TS", "JS", "8H", "7H"], ["9C"], ["QD"], ["KC"], ["KH"], ["KD"], ["KS"], ["AC"]],
        [2, 0, 0, 0, 0, 0, 0, 0],
        [None, None, None, None],
    )
    digs = _texts(board)
    assert ["t1-t2:2", "t1-t3"] in digs
    board.push_text("t1-t2:2")
    board.push_text("t1-t3")
    assert board._down[0] == 1  # TS turned over
