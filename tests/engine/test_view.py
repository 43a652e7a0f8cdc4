"""State JSON both ways, and the player's view (docs/rules.md, "Positions as JSON")."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine import (
    Board,
    StateError,
    board_from_state,
    board_state,
    board_view,
    state_json,
)

from .helpers import build, run
from .pinned_deals import PINNED_DEALS

KEYS = ["variant", "tableau", "face_down", "cells", "foundations", "stock", "won"]


def test_state_keys_and_order() -> None:
    for variant in ("astrocyte", "spider1"):
        board = Board.deal(variant, 0)
        assert list(board_state(board)) == KEYS
        assert list(board_view(board)) == KEYS
        assert list(json.loads(state_json(board))) == KEYS


def test_state_at_the_deal() -> None:
    state = board_state(Board.deal("astrocyte", 0))
    pinned = PINNED_DEALS[("astrocyte", 0)]
    assert state == {
        "variant": "astrocyte",
        "tableau": [col.split() for col in pinned["tableau"]],
        "face_down": [7] * 8,
        "cells": [None, None, None, None],
        "foundations": [[], [], [], [], [], [], [], []],
        "stock": " ".join(pinned["stock"]).split(),
        "won": False,
    }
    assert board_state(Board.deal("spider2", 0))["cells"] == []
    assert state_json(Board.deal("astrocyte", 0)) == json.dumps(state)


def test_view_at_the_deal_hides_face_down_and_stock_cards() -> None:
    board = Board.deal("spider4", 123456)
    state, view = board_state(board), board_view(board)
    assert view["stock"] == [None] * 50
    assert view["face_down"] == [5, 5, 5, 5, 4, 4, 4, 4, 4, 4]
    for column, seen in zip(state["tableau"], view["tableau"], strict=True):
        assert seen == [None] * (len(column) - 1) + [column[-1]]


def test_view_shows_cells_foundations_and_a_flipped_card() -> None:
    board = build(
        tableau=["3C 9D 5H", "6S"],
        face_down=[2],
        cells=["KH"],
        foundations=[run("S")],
        stock="2D 2D 2D 2D 2D 2D 2D 2D",
    )
    view = board_view(board)
    assert view["tableau"][0] == [None, None, "5H"]
    assert view["cells"] == ["KH", None, None, None]
    assert view["foundations"][0] == run("S").split()
    assert view["stock"] == [None] * 8
    board.push_text("t1-t2")
    assert board_view(board)["tableau"][0] == [None, "9D"]
    board.push_text("undo")
    assert board_view(board)["tableau"][0] == [None, None, "5H"]
    assert "9D" not in json.dumps(board_view(board))
    assert "2D" not in json.dumps(board_view(board))


def test_state_round_trips_through_board_from_state() -> None:
    rnd = random.Random(5)
    for variant in ("astrocyte", "spider1", "spider2", "spider4"):
        board = Board.deal(variant, rnd.randrange(2**64))
        for _ in range(80):
            state = board_state(board)
            rebuilt = board_from_state(json.loads(json.dumps(state)))
            assert rebuilt == board
            assert board_state(rebuilt) == state
            assert rebuilt.legal_moves() == board.legal_moves()
            assert len(rebuilt) == 0  # the move stack is not part of a state
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rnd.choice(moves))


def test_the_view_of_a_won_game() -> None:
    board = build(tableau=[run("C", "K", "2"), "AC"], foundations=[run(s) for s in "SHDCSHD"])
    board.push_text("t2-t1")
    view = board_view(board)
    assert view["won"] is True and board_state(board)["won"] is True
    assert view == board_state(board)  # nothing left to hide


def good_state(**changes: Any) -> dict[str, Any]:
    state = board_state(Board.deal("astrocyte", 0))
    state.update(changes)
    return state


@pytest.mark.parametrize(
    ("state", "where"),
    [
        ([], "object"),
        (good_state(variant="klondike"), "variant"),
        (good_state(variant=None), "variant"),
        (good_state(tableau=[["AS"]] * 7), "tableau"),
        (good_state(tableau="AS"), "tableau"),
        (good_state(tableau=[["AS"]] * 7 + [["ZZ"]]), r"tableau\[7\]\[0\]"),
        (good_state(tableau=[["AS"]] * 7 + [["as"]]), "not a card"),
        (good_state(face_down=[7] * 7), "face_down"),
        (good_state(face_down=[8] * 8), "face up"),
        (good_state(face_down=[-1] * 8), "face_down"),
        (good_state(face_down=[True] * 8), "face_down"),
        (good_state(cells=[None] * 3), "cells"),
        (good_state(cells=["AS", None, None, "XX"]), "cells"),
        (good_state(foundations=[[]] * 7), "foundations"),
        (good_state(foundations=[["AS"]] + [[]] * 7), "foundations"),
        (good_state(foundations=[["KS", "QH"]] + [[]] * 7), "foundations"),
        (good_state(foundations=[["KS", "JS"]] + [[]] * 7), "foundations"),
        (good_state(stock=["AS"]), "stock"),
        (good_state(stock=None), "stock"),
    ],
)
def test_bad_states_are_refused_with_a_reason(state: Any, where: str) -> None:
    with pytest.raises(StateError, match=where):
        board_from_state(state)


def test_state_error_is_a_value_error_and_hand_built_states_may_be_small() -> None:
    assert issubclass(StateError, ValueError)
    board = board_from_state(
        {
            "variant": "spider1",
            "tableau": [[]] * 10,
            "face_down": [0] * 10,
            "cells": [],
            "foundations": [[]] * 8,
            "stock": [],
        }
    )
    assert board.legal_moves() == [] and not board.is_won
    # an empty column holds no face-down card
    with pytest.raises(StateError):
        board_from_state(
            {
                "variant": "spider1",
                "tableau": [[]] * 10,
                "face_down": [1] + [0] * 9,
                "cells": [],
                "foundations": [[]] * 8,
                "stock": [],
            }
        )


def test_repr_of_a_board_shows_its_state() -> None:
    board = Board.deal("spider1", 0)
    assert repr(board) == f"<Board {state_json(board)}>"
