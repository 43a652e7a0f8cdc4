"""Cells, foundations and back-moves (docs/rules.md, "Playing" and "Writing actions")."""

from __future__ import annotations

import pytest

from games.engine import Board, board_state

from .helpers import build, columns, play, refuse, run

SPADES, HEARTS, DIAMONDS, CLUBS = run("S"), run("H"), run("D"), run("C")


def foundations(board: Board) -> list[str]:
    return [" ".join(pile) for pile in board_state(board)["foundations"]]


# -- cells --------------------------------------------------------------------------------


def test_a_column_top_goes_to_an_empty_cell_and_flips_what_is_under_it() -> None:
    board = build(tableau=["JC 4D"], face_down=[1], cells=["9S"])
    play(board, "t1-c2")
    state = board_state(board)
    assert state["cells"] == ["9S", "4D", None, None]
    assert state["tableau"][0] == ["JC"]
    assert state["face_down"][0] == 0


@pytest.mark.parametrize("cell", ["c1", "c2", "c3", "c4"])
def test_every_empty_cell_takes_a_card(cell: str) -> None:
    board = build(tableau=["4D"])
    play(board, f"t1-{cell}")
    assert board_state(board)["cells"][int(cell[1]) - 1] == "4D"


def test_an_occupied_cell_is_refused() -> None:
    board = build(tableau=["4D", "5S"], cells=["9S"], foundations=[SPADES])
    refuse(board, "t1-c1", match="c1 already holds 9S")
    refuse(board, "f1-c1", match="c1 already holds 9S")


def test_a_foundation_top_goes_to_an_empty_cell() -> None:
    board = build(tableau=["4D"], foundations=[HEARTS])
    assert board.complete_foundations == 1
    play(board, "f1-c3")
    assert board_state(board)["cells"] == [None, None, "AH", None]
    assert foundations(board)[0] == run("H", "K", "2")
    assert board.complete_foundations == 0


def test_a_cell_card_goes_on_a_card_one_rank_higher_or_into_an_empty_column() -> None:
    board = build(tableau=["6S", "7D"], cells=["6H", None, "5C"])
    refuse(board, "c1-t1", match="one rank higher")
    play(board, "c1-t2")
    play(board, "c3-t2")
    assert columns(board)[1] == "7D 6H 5C"
    assert board_state(board)["cells"] == [None, None, None, None]
    board = build(tableau=["6S"], cells=["KH"])
    play(board, "c1-t2")
    assert columns(board)[:2] == ["6S", "KH"]


def test_cell_to_cell_is_refused() -> None:
    board = build(tableau=["6S"], cells=["6H", None, "5C"])
    refuse(board, "c1-c2", match="only to the tableau")
    refuse(board, "c1-c3", match="only to the tableau")
    assert not [m for m in board.legal_moves() if m.src >= 10 and m.dst >= 10]


def test_an_empty_cell_is_no_source() -> None:
    board = build(tableau=["6S", "7H"])
    refuse(board, "c1-t2", match="c1 is empty")
    refuse(board, "c1-t3", match="c1 is empty")


def test_a_cell_card_goes_to_no_foundation() -> None:
    board = build(tableau=[run("S", "K", "2")], cells=["AS"])
    refuse(board, "c1-f1", match="foundation")
    refuse(board, "c1-f2", match="foundation")


@pytest.mark.parametrize("variant", ["spider1", "spider2", "spider4"])
@pytest.mark.parametrize("text", ["t1-c1", "c1-t1", "c1-c2", "f1-c1", "c4-t10"])
def test_spider_has_no_cells(variant: str, text: str) -> None:
    board = build(variant, tableau=["5S"] * 10, foundations=[SPADES])
    refuse(board, text, kind="invalid", match="no cells")


# -- foundations ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["astrocyte", "spider1"])
@pytest.mark.parametrize("text", ["t1-f1", "t2-f1", "t2-f8", "f1-f2"])
def test_no_card_is_played_to_a_foundation_by_hand(variant: str, text: str) -> None:
    board = build(variant, tableau=["AS", run("S", "K", "2")], foundations=[HEARTS])
    refuse(board, text, match="foundation")
    assert not [m for m in board.legal_moves() if m.dst >= 14]


def test_a_completed_run_goes_home_as_part_of_the_move() -> None:
    board = build(tableau=["7C 3D " + run("S", "K", "2"), "9H AS"], face_down=[2, 1])
    play(board, "t2-t1")
    state = board_state(board)
    assert state["foundations"][0] == SPADES.split()
    assert state["tableau"][:2] == [["7C", "3D"], ["9H"]]
    assert state["face_down"][:2] == [1, 0]  # both columns flipped: 3D after the run went home
    assert board.complete_foundations == 1
    assert board.move_stack == [board.move_stack[0]] and len(board) == 1


def test_a_group_move_that_completes_a_run_sends_it_home() -> None:
    board = build(tableau=[run("D", "K", "6"), "9C " + run("D", "5", "A")])
    play(board, "t2-t1:5")
    assert columns(board)[:2] == ["", "9C"]
    assert foundations(board)[0] == DIAMONDS


def test_a_cell_to_tableau_move_completes_a_run() -> None:
    board = build(tableau=[run("C", "K", "2")], cells=[None, "AC"])
    play(board, "c2-t1")
    assert foundations(board)[0] == CLUBS
    assert columns(board)[0] == ""
    assert board_state(board)["cells"] == [None] * 4


def test_the_run_goes_to_the_lowest_numbered_empty_foundation() -> None:
    board = build(
        tableau=[run("H", "K", "2"), "AH"],
        foundations=[SPADES, "", CLUBS, "", DIAMONDS],
    )
    play(board, "t2-t1")
    assert foundations(board)[:5] == [SPADES, HEARTS, CLUBS, "", DIAMONDS]


def test_a_foundation_a_card_went_back_from_is_not_empty() -> None:
    board = build(tableau=["9D", run("H", "K", "2"), "AH"], foundations=[SPADES])
    play(board, "f1-c1")  # AS back: f1 holds K..2 of spades
    assert foundations(board)[0] == run("S", "K", "2")
    play(board, "t3-t2")
    assert foundations(board)[:2] == [run("S", "K", "2"), HEARTS]
    assert board.complete_foundations == 1


def test_a_back_move_that_recompletes_a_run_sends_it_to_the_next_empty_foundation() -> None:
    board = build(tableau=[run("S", "K", "2")], foundations=[HEARTS, SPADES])
    play(board, "f2-t1")  # AS from f2 completes the spades on t1 at once
    assert columns(board)[0] == ""
    assert foundations(board)[:3] == [HEARTS, run("S", "K", "2"), SPADES]
    assert board.complete_foundations == 2
    assert len(board) == 1


def test_runs_completed_by_one_deal_go_home_left_to_right() -> None:
    # t2 and t6 each lack their Ace; one deal brings both; f2 is already taken
    board = build(
        tableau=[
            "5H",
            "QS " + run("D", "K", "2"),
            "5H",
            "5H",
            "5H",
            "8S " + run("C", "K", "2"),
            "5H",
            "5H",
        ],
        face_down=[0, 1, 0, 0, 0, 1],
        foundations=["", SPADES],
        stock="9D AD 9D 9D 9D AC 9D 9D",
    )
    play(board, "deal")
    state = board_state(board)
    assert foundations(board)[:4] == [DIAMONDS, SPADES, CLUBS, ""]
    assert state["tableau"][1] == ["QS"] and state["tableau"][5] == ["8S"]
    assert state["face_down"][1] == 0 and state["face_down"][5] == 0
    assert state["tableau"][0] == ["5H", "9D"]
    assert state["stock"] == []
    assert len(board) == 1


def test_runs_completed_by_one_spider_deal_on_several_columns() -> None:
    tableau = ["3S"] * 10
    tableau[0] = run("S", "K", "2")
    tableau[4] = "4S " + run("S", "K", "2")
    tableau[9] = run("S", "K", "2")
    board = build(
        "spider1",
        tableau=tableau,
        face_down=[0, 0, 0, 0, 1],
        foundations=[SPADES],
        stock="AS 2S 2S 2S AS 2S 2S 2S 2S AS",
    )
    play(board, "deal")
    state = board_state(board)
    assert [len(f) for f in state["foundations"]] == [13, 13, 13, 13, 0, 0, 0, 0]
    assert state["tableau"][0] == [] and state["tableau"][9] == []
    assert state["tableau"][4] == ["4S"] and state["face_down"][4] == 0
    assert state["tableau"][1] == ["3S", "2S"]
    assert board.complete_foundations == 4


def test_a_column_that_ends_with_another_complete_run_sends_it_home_too() -> None:
    # a hand-built column: 9D, then a complete spade run covered by K..2 of hearts
    board = build(
        tableau=["9D " + SPADES + " " + run("H", "K", "2")],
        face_down=[1],
        cells=["AH"],
        foundations=["", CLUBS],
    )
    play(board, "c1-t1")
    state = board_state(board)
    assert foundations(board)[:4] == [HEARTS, CLUBS, SPADES, ""]
    assert state["tableau"][0] == ["9D"]
    assert state["face_down"][0] == 0
    assert len(board) == 1


def test_a_deal_completing_a_run_over_another_complete_run() -> None:
    board = build(
        "spider2",
        tableau=[SPADES + " " + run("H", "K", "2")] + ["7H"] * 9,
        stock="AH 6H 6H 6H 6H 6H 6H 6H 6H 6H",
    )
    play(board, "deal")
    assert foundations(board)[:3] == [HEARTS, SPADES, ""]
    assert columns(board)[0] == ""


def test_a_deal_may_put_a_card_on_an_ace() -> None:
    board = build(
        tableau=["AS", "AH", "KD", "5C", "5C", "5C", "5C", "5C"], stock="9D 9D 9D 9D 9D 9D 9D 9D"
    )
    play(board, "deal")
    assert columns(board)[:3] == ["AS 9D", "AH 9D", "KD 9D"]


# -- back-moves ---------------------------------------------------------------------------


def test_a_back_move_goes_on_a_card_one_rank_higher_or_into_an_empty_column() -> None:
    board = build(tableau=["2D", "3D", "KC"], foundations=[SPADES])
    refuse(board, "f1-t2", match="one rank higher")
    refuse(board, "f1-t3", match="one rank higher")
    play(board, "f1-t1")
    assert columns(board)[0] == "2D AS"
    play(board, "f1-t2")
    assert columns(board)[1] == "3D 2S"
    play(board, "f1-c1")
    assert board_state(board)["cells"][0] == "3S"
    play(board, "f1-t4")
    assert columns(board)[3] == "4S"
    assert foundations(board)[0] == run("S", "K", "5")


def test_a_back_move_from_an_empty_foundation_is_refused() -> None:
    board = build(tableau=["2D"], foundations=["", SPADES])
    refuse(board, "f1-t2", match="f1 is empty")
    refuse(board, "f1-c1", match="f1 is empty")
    play(board, "f2-t1")


@pytest.mark.parametrize("variant", ["spider1", "spider2", "spider4"])
def test_spider_has_no_back_moves(variant: str) -> None:
    board = build(variant, tableau=["2H"] * 9, foundations=[SPADES])
    refuse(board, "f1-t1", match="stays on its foundation")
    refuse(board, "f1-t10", match="stays on its foundation")
    assert all(m.src < 10 or m.is_deal for m in board.legal_moves())


def test_complete_foundations_counts_only_full_ones() -> None:
    board = build(tableau=["9D"], foundations=[SPADES, HEARTS, "", DIAMONDS])
    assert board.complete_foundations == 3
    play(board, "f2-c1")
    assert board.complete_foundations == 2
    play(board, "f4-c2")
    assert board.complete_foundations == 1
    board.push_text("undo")
    assert board.complete_foundations == 2
