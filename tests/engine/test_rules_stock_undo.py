"""Stock deals, undo, the win and stuck positions (docs/rules.md, "Playing")."""

from __future__ import annotations

import pytest

from games.engine import Board, IllegalMoveError, board_state

from .helpers import build, columns, play, played_and_undone, refuse, run

SPADES, HEARTS = run("S"), run("H")
SEVEN_RUNS = [run(s) for s in "SHDCSHD"]


def test_a_deal_puts_one_card_on_every_column_left_to_right() -> None:
    board = build(
        tableau=["9D", "9D", "9D", "9D", "9D", "9D", "9D", "9D"],
        stock="AS 2S 3S 4S 5S 6S 7S 8S 2H 3H 4H 5H 6H 7H 8H 9H",
    )
    assert board.deals_left == 2
    play(board, "deal")
    assert columns(board) == [f"9D {r}S" for r in "A2345678"]
    assert board_state(board)["stock"] == ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]
    assert board_state(board)["face_down"] == [0] * 8  # dealt cards are face up
    assert board.deals_left == 1


def test_spider_deal_covers_ten_columns() -> None:
    board = Board.deal("spider4", 77)
    before = board_state(board)
    play(board, "deal")
    after = board_state(board)
    assert after["tableau"] == [
        [*col, card] for col, card in zip(before["tableau"], before["stock"][:10], strict=True)
    ]
    assert after["stock"] == before["stock"][10:]
    assert after["face_down"] == before["face_down"]


@pytest.mark.parametrize("empty", [0, 3, 7])
def test_no_deal_while_a_column_is_empty(empty: int) -> None:
    tableau = ["9D"] * 8
    tableau[empty] = ""
    board = build(tableau=tableau, stock="AS 2S 3S 4S 5S 6S 7S 8S")
    refuse(board, "deal", match=f"fill t{empty + 1}")
    assert "column is empty" in refuse(board, "deal")


def test_no_deal_names_the_first_empty_column() -> None:
    board = Board.deal("spider1", 3)
    column = next(i for i, col in enumerate(board_state(board)["tableau"]))
    assert column == 0
    board = build(
        "spider1",
        tableau=["5S", "", "5S", "", "5S", "5S", "5S", "5S", "5S", "5S"],
        stock="5S " * 10,
    )
    refuse(board, "deal", match="fill t2 first")


def test_cells_do_not_count_for_the_deal() -> None:
    board = build(tableau=["9D"] * 8, cells=[None, "5C"], stock="AS 2S 3S 4S 5S 6S 7S 8S")
    play(board, "deal")
    board = build(
        tableau=["9D"] * 8, cells=["QS", "5C", "4C", "3C"], stock="AS 2S 3S 4S 5S 6S 7S 8S"
    )
    play(board, "deal")


def test_no_deal_from_an_empty_stock() -> None:
    board = build(tableau=["9D"] * 8)
    assert board.deals_left == 0
    refuse(board, "deal", match="stock is empty")


@pytest.mark.parametrize("variant", ["astrocyte", "spider1", "spider2", "spider4"])
def test_five_deals_and_no_more(variant: str) -> None:
    board = Board.deal(variant, 12)
    for left in range(5, 0, -1):
        assert board.deals_left == left
        play(board, "deal")
    assert board.deals_left == 0
    assert board_state(board)["stock"] == []
    refuse(board, "deal", match="all 5 deals")


# -- undo ---------------------------------------------------------------------------------


def test_undo_of_a_deal_that_sent_runs_home_restores_the_exact_position() -> None:
    board = build(
        tableau=[
            "QS " + run("D", "K", "2"),
            "5H",
            "5H",
            "7C " + run("C", "K", "2"),
            "5H",
            "5H",
            "5H",
            "5H",
        ],
        face_down=[1, 0, 0, 1],
        foundations=["", SPADES],
        stock="AD 9D 9D AC 9D 9D 9D 9D 2S 2S 2S 2S 2S 2S 2S 2S",
    )
    start, start_state = board.copy(), board_state(board)
    play(board, "deal")
    assert board.complete_foundations == 3
    assert board_state(board)["face_down"][:4] == [0, 0, 0, 0]
    play(board, "undo")
    assert board == start
    assert board_state(board) == start_state
    assert board.deals_left == 2
    assert len(board) == 0
    # the position plays on exactly as before
    play(board, "deal")
    assert [" ".join(f) for f in board_state(board)["foundations"][:4]] == [
        run("D"),
        SPADES,
        run("C"),
        "",
    ]


def test_undo_of_a_move_with_a_flip_turns_the_card_back_down() -> None:
    board = build(tableau=["3C 9D 5H", "6S"], face_down=[2])
    assert played_and_undone(board, "t1-t2")["face_down"][0] == 1


def test_undo_of_a_move_that_sent_runs_home_with_a_flip() -> None:
    board = build(
        tableau=["9D " + SPADES + " " + run("H", "K", "2")],
        face_down=[1],
        cells=["AH"],
    )
    assert played_and_undone(board, "c1-t1")["face_down"][0] == 0


def test_undo_of_a_back_move_that_recompleted_a_run() -> None:
    board = build(tableau=[run("S", "K", "2")], foundations=[HEARTS, SPADES])
    played_and_undone(board, "f2-t1")
    assert board.complete_foundations == 2


def test_undo_with_nothing_to_undo_is_refused() -> None:
    board = Board.deal("astrocyte", 5)
    assert "undo" not in board.legal_actions()
    refuse(board, "undo", match="nothing to undo")


def test_each_undo_steps_one_action_further_back_and_is_never_undone() -> None:
    board = build(tableau=["5H", "6H", "7D", "9C"], stock="AS 2S 3S 4S 5S 6S 7S 8S")
    states = [board_state(board)]
    for text in ("t1-t2", "t2-t3:2", "t4-c1", "c1-t4"):
        play(board, text)
        states.append(board_state(board))
    assert "undo" in board.legal_actions()
    for expected in reversed(states[:-1]):
        play(board, "undo")
        assert board_state(board) == expected
    refuse(board, "undo", match="nothing to undo")
    assert len(board) == 0


def test_undo_after_a_new_action_undoes_that_action() -> None:
    board = build(tableau=["5H", "6S", "6D"])
    start = board_state(board)
    play(board, "t1-t2")
    play(board, "undo")
    play(board, "t1-t3")
    after_second = board_state(board)
    assert after_second["tableau"][2] == ["6D", "5H"]
    play(board, "undo")
    assert board_state(board) == start
    refuse(board, "undo")


def test_legal_actions_offers_undo_only_with_something_to_undo() -> None:
    board = build(tableau=["5H", "6S", "KD", "KD", "KD", "KD", "KD", "KD"], cells=["KC"] * 4)
    assert board.legal_actions() == ["t1-t2"]
    play(board, "t1-t2")
    # 6S 5H is no one-suit run: no "t2-t1:2"
    assert board.legal_actions() == [
        "t2-t1",
        "t3-t1",
        "t4-t1",
        "t5-t1",
        "t6-t1",
        "t7-t1",
        "t8-t1",
        "c1-t1",
        "c2-t1",
        "c3-t1",
        "c4-t1",
        "undo",
    ]
    assert all(not m.is_undo for m in board.legal_moves())


# -- the win ------------------------------------------------------------------------------


def near_won(variant: str = "astrocyte") -> Board:
    columns_ = 8 if variant == "astrocyte" else 10
    return build(
        variant, tableau=[run("C", "K", "2"), "AC"] + [""] * (columns_ - 2), foundations=SEVEN_RUNS
    )


@pytest.mark.parametrize("variant", ["astrocyte", "spider4"])
def test_the_last_run_home_wins(variant: str) -> None:
    board = near_won(variant)
    assert not board.is_won
    assert board.complete_foundations == 7
    play(board, "t2-t1")
    assert board.is_won
    assert board_state(board)["won"] is True
    assert board.complete_foundations == 8
    assert board_state(board)["tableau"] == [[]] * len(board_state(board)["tableau"])


@pytest.mark.parametrize("text", ["undo", "f1-t1", "f1-c1", "deal", "t1-t2"])
def test_every_action_after_the_win_is_refused(text: str) -> None:
    board = near_won()
    play(board, "t2-t1")
    refuse(board, text, match="already won")
    assert board.legal_moves() == []
    assert board.legal_actions() == []
    assert not board.is_stuck()


def test_bad_text_after_the_win_is_still_invalid() -> None:
    board = near_won()
    play(board, "t2-t1")
    refuse(board, "t9-t1", kind="invalid")
    refuse(board, "x", kind="invalid")


def test_the_win_can_be_undone_by_pop_only() -> None:
    # pop is the engine's own undo (for the solver); the rules refuse undo after the win
    board = near_won()
    start = board_state(board)
    play(board, "t2-t1")
    with pytest.raises(IllegalMoveError):
        board.push_text("undo")
    board.pop()
    assert board_state(board) == start


# -- stuck ----------------------------------------------------------------------------------


def test_stuck_when_the_stock_is_empty_and_nothing_moves() -> None:
    board = build("spider1", tableau=["AS"] * 10)
    assert board.legal_moves() == []
    assert board.is_stuck()
    assert board.legal_actions() == []


def test_not_stuck_while_a_deal_is_left() -> None:
    board = build("spider1", tableau=["AS"] * 10, stock="9S " * 10)
    assert [str(m) for m in board.legal_moves()] == ["deal"]
    assert not board.is_stuck()


def test_not_stuck_while_the_stock_holds_cards_even_when_nothing_moves() -> None:
    # docs/rules.md: stuck needs an empty stock. (Unreachable in a real game: a deal is always
    # possible or some card can fill the empty column; hand-built here.)
    board = build("spider1", tableau=[""] * 10, stock="9S " * 10)
    assert board.legal_moves() == []
    assert not board.is_stuck()


def test_astrocyte_stuck_with_full_cells() -> None:
    board = build(
        tableau=["AS", "AH", "AD", "AC", "AS", "AH", "AD", "AC"], cells=["KS", "KH", "QD", "9C"]
    )
    assert board.is_stuck()
    board = build(
        tableau=["AS", "AH", "AD", "AC", "AS", "AH", "AD", "AC"], cells=["KS", "KH", "QD", None]
    )
    assert not board.is_stuck()
    assert {str(m) for m in board.legal_moves()} == {f"t{i}-c4" for i in range(1, 9)}


def test_stuck_with_undo_available_is_still_stuck() -> None:
    board = build("spider1", tableau=["AS"] * 8 + ["2S", "9S AS"])
    assert not board.is_stuck()
    play(board, "t10-t9")
    assert board.is_stuck()
    assert board.legal_actions() == ["undo"]
    play(board, "undo")
    assert not board.is_stuck()


def test_a_back_move_keeps_astrocyte_from_being_stuck() -> None:
    board = build(tableau=["KS"] * 7 + ["2C"], cells=["KS", "KH", "KD", "KC"])
    assert board.is_stuck()
    board = build(tableau=["KS"] * 7 + ["2C"], cells=["KS", "KH", "KD", "KC"], foundations=[HEARTS])
    assert not board.is_stuck()
    assert [str(m) for m in board.legal_moves()] == ["f1-t8"]
