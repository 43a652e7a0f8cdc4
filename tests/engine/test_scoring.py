"""The score (docs/rules.md, "Scoring")."""

from __future__ import annotations

import math

import pytest

from games.engine import (
    Board,
    Score,
    cards_turned_up,
    face_down_dealt,
    replay,
    score,
    score_breakdown,
)

from .helpers import build, run

SEVEN = [run(s) for s in "SHDCSHD"]


def fresh() -> Board:
    return Board.deal("astrocyte", 0)


def won() -> Board:
    board = build(tableau=[run("C", "K", "2"), "AC"], foundations=SEVEN)
    board.push_text("t2-t1")
    assert board.is_won
    return board


@pytest.mark.parametrize(
    ("actions", "elapsed", "expected"),
    [
        (0, 0, 500),
        (1, 0, 499),
        (0, 1, 500),  # floor(1 / 2) == 0
        (0, 1.99, 500),
        (0, 2, 499),
        (0, 3, 499),
        (0, 3.99, 499),
        (0, 4, 498),
        (10, 59, 500 - 10 - 29),
        (120, 600, 500 - 120 - 300),
        (250, 500, 0),
        (499, 1, 1),
        (500, 0, 0),
    ],
)
def test_the_formula_on_a_position_with_no_foundations(
    actions: int, elapsed: float, expected: int
) -> None:
    assert score(actions, elapsed, fresh()) == expected


def test_never_below_zero() -> None:
    assert score(501, 0, fresh()) == 0
    assert score(10_000, 10_000, fresh()) == 0
    assert score(0, 10**9, fresh()) == 0
    assert score_breakdown(700, 0, fresh()).total == 0


def test_every_action_counts_undo_included() -> None:
    log = ["t1-c1", "undo", "t1-c1", "undo"]
    result = replay("astrocyte", 0, log)
    assert result.ok
    assert score(log, 0, result.board) == 496
    assert score(len(log), 0, result.board) == 496
    assert score(tuple(log), 0, result.board) == 496


def test_a_text_log_counts_its_actions_not_its_characters() -> None:
    assert score("t1-c1 undo t1-c1", 0, fresh()) == 497
    assert score('["t1-c1", "undo"]', 0, fresh()) == 498


def test_foundations_count_only_when_complete() -> None:
    board = build(tableau=["9D"], foundations=[run("S"), run("H"), "", run("D")])
    assert score(0, 0, board) == 500 + 300
    board.push_text("f2-c1")  # hearts down to 12 cards: no longer complete
    assert score(1, 0, board) == 500 - 1 + 200
    board.push_text("c1-t2")
    assert score(2, 0, board) == 500 - 2 + 200
    board.push_text("undo")
    board.push_text("undo")
    assert score(4, 0, board) == 500 - 4 + 300


def test_the_win_adds_fifty() -> None:
    board = won()
    breakdown = score_breakdown(37, 45, board)
    assert breakdown == Score(
        base=500,
        actions=37,
        time_penalty=22,
        foundations=8,
        foundation_bonus=800,
        win_bonus=50,
        total=500 - 37 - 22 + 800 + 50,
    )
    assert score(37, 45, board) == 1291


def test_seven_foundations_without_the_win_get_no_bonus() -> None:
    board = build(tableau=[run("C", "K", "2"), "AC"], foundations=SEVEN)
    assert score_breakdown(0, 0, board).win_bonus == 0
    assert score(0, 0, board) == 500 + 700


def test_breakdown_adds_up() -> None:
    breakdown = score_breakdown(["deal"] * 3, 7.5, fresh())
    assert breakdown.actions == 3
    assert breakdown.time_penalty == 3
    assert breakdown.total == breakdown.base - 3 - 3 + breakdown.foundation_bonus


@pytest.mark.parametrize("bad", [(-1, 0), (0, -1), (0, -0.5), (0, math.nan)])
def test_bad_inputs_are_refused(bad: tuple[int, float]) -> None:
    with pytest.raises(ValueError):
        score(bad[0], bad[1], fresh())


# --- progress: cards turned up (docs/rules.md, "Scoring": how a game not won ranks) ------


@pytest.mark.parametrize(
    ("variant", "face_down"), [("astrocyte", 56), ("spider1", 44), ("spider2", 44), ("spider4", 44)]
)
def test_a_fresh_deal_has_turned_up_nothing_of_its_face_down_cards(
    variant: str, face_down: int
) -> None:
    board = Board.deal(variant, 7)
    assert face_down_dealt(board.variant) == face_down
    assert sum(down for _, down in board.iter_columns()) == face_down
    assert cards_turned_up(board) == 0


def test_each_card_a_move_turns_up_counts_and_undo_takes_it_back() -> None:
    board = Board.deal("spider4", 3)
    turned, last = 0, 0
    for _ in range(60):
        moves = [a for a in board.legal_actions() if a not in ("undo", "deal")]
        if not moves:
            break
        last = len(board.play(moves[0]).revealed)
        turned += last
        assert cards_turned_up(board) == turned
    assert turned > 0, "the line played turned up no card: pick another seed"
    board.push_text("undo")
    assert cards_turned_up(board) == turned - last


def test_a_won_game_has_turned_up_every_face_down_card() -> None:
    assert cards_turned_up(won()) == face_down_dealt(won().variant)
