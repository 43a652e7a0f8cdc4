"""Tableau play (docs/rules.md, "Playing": tableau, groups, flips, empty columns)."""

from __future__ import annotations

import pytest

from games.engine import Move, board_state

from .helpers import RANKS, build, columns, play, refuse, run


@pytest.mark.parametrize("suit", "SHDC")
@pytest.mark.parametrize("target_suit", "SHDC")
def test_a_card_goes_on_one_rank_higher_whatever_its_suit(suit: str, target_suit: str) -> None:
    board = build(tableau=["9D 6" + suit, "7" + target_suit])
    play(board, "t1-t2")
    assert columns(board)[:2] == ["9D", "7" + target_suit + " 6" + suit]


@pytest.mark.parametrize("target", ["5S", "6S", "6H", "8S", "KS", "2C"])
def test_a_card_does_not_go_on_other_ranks(target: str) -> None:
    board = build(tableau=["6H", target])
    message = refuse(board, "t1-t2")
    assert "one rank higher" in message
    assert "6H" in message and target in message


@pytest.mark.parametrize("card", ["AS", "2H", "5C", "KD"])
def test_nothing_goes_on_an_ace(card: str) -> None:
    board = build(tableau=[card, "AH"], cells=["2S"])
    refuse(board, "t1-t2", match="nothing goes on an Ace")
    refuse(board, "c1-t2", match="Ace")
    assert not any(move.dst == 1 for move in board.legal_moves())


def test_an_ace_goes_on_any_two() -> None:
    board = build(tableau=["AS", "2H"])
    play(board, "t1-t2")
    assert columns(board)[1] == "2H AS"


@pytest.mark.parametrize("size", range(2, 13))
def test_group_of_each_size_moves_when_face_up_one_suit_descending(size: int) -> None:
    group = run("H", RANKS[size - 1], "A")  # size cards, from rank `size` down to the Ace
    target = RANKS[size] + "C"  # one rank higher than the group's bottom, another suit
    board = build(tableau=["4D " + group, target], face_down=[1])
    assert len(group.split()) == size
    for too_many in (size + 1, size + 2):
        refuse(board, f"t1-t2:{too_many}", match=f"only the top {size} cards")
    play(board, f"t1-t2:{size}")
    assert columns(board)[:2] == ["4D", f"{target} {group}"]
    assert board_state(board)["face_down"][0] == 0  # 4D flipped with the move


@pytest.mark.parametrize("size", range(2, 13))
def test_group_of_each_size_moves_into_an_empty_column(size: int) -> None:
    group = run("S", "K", RANKS[13 - size])  # a King-down run of `size` cards
    board = build(tableau=["9H " + group])
    assert len(group.split()) == size
    play(board, f"t1-t3:{size}")
    assert columns(board)[:3] == ["9H", "", group]


def test_a_group_of_thirteen_moves_and_goes_home_at_once() -> None:
    # a hand-built column holding a complete run under nothing: moving it completes nothing
    # new, but the run it forms in the empty column goes home as part of the move
    board = build(tableau=["9H " + run("S")])
    play(board, "t1-t3:13")
    state = board_state(board)
    assert state["tableau"][:3] == [["9H"], [], []]
    assert state["foundations"][0] == run("S").split()


@pytest.mark.parametrize("size", range(1, 13))
def test_the_top_part_of_a_run_moves_too(size: int) -> None:
    # a 12-card run: any top part of it moves onto a card one rank above the part's bottom
    bottom = RANKS[size - 1]  # the part's bottom card has rank `size`
    target = RANKS[size] + "H"
    board = build(tableau=[run("S", "Q", "A"), target])
    text = f"t1-t2:{size}" if size > 1 else "t1-t2"
    play(board, text)
    assert columns(board)[1] == f"{target} {run('S', bottom, 'A')}"


def test_a_mixed_suit_group_is_refused() -> None:
    board = build(tableau=["6H 5S 4H", "7C"])
    refuse(board, "t1-t2:3", match="only the top card")
    refuse(board, "t1-t2:2", match="only the top card")
    board = build(tableau=["6H 5H 4S", "6C"])
    refuse(board, "t1-t2:2", match="only the top card")


def test_a_group_that_does_not_descend_by_one_is_refused() -> None:
    for column in ("6H 4H", "4H 5H", "6H 6H", "KH AH"):
        board = build(tableau=[column, "8C"])
        refuse(board, "t1-t3:2")
        assert [str(m) for m in board.legal_moves() if m.count > 1] == []


def test_a_group_including_a_face_down_card_is_refused() -> None:
    board = build(tableau=["6H 5H 4H", "7S", "6S"], face_down=[1])
    refuse(board, "t1-t2:3", match="only the top 2 cards")
    play(board, "t1-t3:2")
    assert columns(board)[:3] == ["6H", "7S", "6S 5H 4H"]
    assert board_state(board)["face_down"][0] == 0


def test_a_group_larger_than_the_column_is_refused() -> None:
    board = build(tableau=["5H 4H", "6S"])
    refuse(board, "t1-t2:3")
    refuse(board, "t1-t2:13")
    refuse(board, "t1-t2:14")  # longer than any run: well-formed, refused
    refuse(board, "t1-t2:99")


def test_a_group_goes_only_on_one_rank_above_its_bottom_card() -> None:
    board = build(tableau=["5H 4H", "5S", "7S", "6D"])
    refuse(board, "t1-t2:2")
    refuse(board, "t1-t3:2")
    play(board, "t1-t4:2")


def test_group_size_is_not_limited_by_cells_or_empty_columns() -> None:
    # every cell full and no empty column: a long run still moves as one
    group = run("D", "J", "2")
    board = build(
        tableau=["3S " + group, "QC", "9S", "9S", "9S", "9S", "9S", "9S"],
        face_down=[1],
        cells=["KS", "KS", "KS", "KS"],
    )
    play(board, "t1-t2:10")
    assert columns(board)[1] == "QC " + group


@pytest.mark.parametrize("card", ["AS", "5H", "KD"])
def test_any_card_goes_into_an_empty_column(card: str) -> None:
    board = build(tableau=["8C " + card, "", "KH"], face_down=[1])
    play(board, "t1-t2")
    assert columns(board)[:3] == ["8C", card, "KH"]
    assert board_state(board)["face_down"][:2] == [0, 0]


def test_a_king_goes_only_into_an_empty_column() -> None:
    board = build(tableau=["KS", "QH", "AD"])
    refuse(board, "t1-t2")
    refuse(board, "t1-t3")
    play(board, "t1-t4")


def test_a_move_from_an_empty_column_is_refused() -> None:
    board = build(tableau=["5H", "", "6S"])
    refuse(board, "t2-t3", match="t2 is empty")
    refuse(board, "t2-t1", match="t2 is empty")
    refuse(board, "t2-c1", match="t2 is empty")
    refuse(board, "t2-t3:2", match="t2 is empty")


def test_a_flip_is_part_of_the_move() -> None:
    board = build(tableau=["3C 9D 5H", "6S"], face_down=[2])
    play(board, "t1-t2")
    state = board_state(board)
    assert state["tableau"][0] == ["3C", "9D"]
    assert state["face_down"][0] == 1
    assert len(board.move_stack) == 1  # the flip is no action of its own
    # the flipped card is playable at once
    assert Move.parse("t1-c1") in board.legal_moves()


def test_moving_the_last_card_leaves_an_empty_column_with_no_face_down() -> None:
    board = build(tableau=["5H", "6S"])
    play(board, "t1-t2")
    assert board_state(board)["tableau"][0] == []
    assert board_state(board)["face_down"][0] == 0


def test_a_run_on_a_face_down_card_of_the_same_suit_does_not_extend() -> None:
    # 7H is face down under 6H: the run is 6H 5H only, even though 7H continues it
    board = build(tableau=["7H 6H 5H", "7S", ""], face_down=[1])
    refuse(board, "t1-t3:3")
    play(board, "t1-t2:2")
    # now 7H is face up and alone
    assert columns(board)[:2] == ["7H", "7S 6H 5H"]
    assert board_state(board)["face_down"][0] == 0


def test_a_run_grows_when_a_group_lands_on_its_suit() -> None:
    board = build(tableau=["4H 3H", "7H 6H 5H", "8C", "5S 4S", "8D"])
    play(board, "t1-t2:2")
    assert columns(board)[1] == "7H 6H 5H 4H 3H"
    refuse(board, "t2-t3:6")
    play(board, "t2-t3:5")
    assert columns(board)[2] == "8C 7H 6H 5H 4H 3H"


def test_a_group_on_another_suit_starts_a_new_run() -> None:
    board = build(tableau=["4S 3S", "7H 6H 5H", "8C"])
    play(board, "t1-t2:2")
    # 4S on 5H: the top run is now 4S 3S only
    refuse(board, "t2-t3:5", match="only the top 2 cards")
    refuse(board, "t2-t3:2")  # 4S needs a 5
    assert [str(m) for m in board.legal_moves() if m.src == 1 and m.count > 2] == []
