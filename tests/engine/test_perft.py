"""Counts of legal moves in fixed positions (like chess perft), and move generation checked
against refusal() and against an independent reading of docs/rules.md (oracle.py)."""

from __future__ import annotations

import random

import pytest

from games.engine import Board, Move, board_state, replay

from .helpers import build, run
from .oracle import all_texts, legal_texts


def perft(board: Board, depth: int) -> int:
    """Leaves of the tree of legal moves (undo excluded) ``depth`` plies deep."""
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def from_log(variant: str, seed: int, log: str) -> Board:
    result = replay(variant, seed, log)
    assert result.ok, result.error
    return result.board


def hand_built_astrocyte() -> Board:
    # cells, a foundation to take back from, an empty column, a covered run, a stock
    return build(
        tableau=["9D " + run("H", "8", "3"), "KS", "", "QC 2C AD", "7S 6S", "9C", "5H", "TD"],
        face_down=[1, 0, 0, 1],
        cells=["AH", None, "4C", None],
        foundations=[run("S"), "", run("C")],
        stock="3S 4S 5S 6S 7S 8S 9S TS",
    )


def hand_built_spider() -> Board:
    return build(
        "spider1",
        tableau=[
            "9S 8S 7S",
            "",
            run("S", "K", "4"),
            "5S 3S",
            "6S 5S 4S",
            "JS",
            "TS 9S",
            "AS",
            "2S",
            "QS",
        ],
        face_down=[1, 0, 0, 0, 1],
        foundations=[run("S")],
        stock="3S " * 10,
    )


LOGS = {
    "astrocyte-123456": (
        "astrocyte",
        123456,
        "t2-c4 t6-c2 t2-c1 t4-t7 t2-t1 t5-c3 deal c1-t7 t6-c1 deal t4-t2 t2-t1",
    ),
    "spider4-max": (
        "spider4",
        2**64 - 1,
        "t2-t5 t5-t8 t5-t7 t4-t5 t4-t10 deal t9-t6 t6-t10 deal t2-t10 t2-t10 deal",
    ),
    "spider2-123456": (
        "spider2",
        123456,
        "t2-t10 t10-t8 t8-t10 t5-t3 t6-t7 t7-t4:2 t6-t10 t2-t5 deal t1-t8 deal deal t8-t6 "
        "t10-t6 t5-t6 t5-t6 t8-t7 t7-t9 t9-t8 t8-t7",
    ),
    "astrocyte-0-walk": (
        "astrocyte",
        0,
        "t4-t5 t5-c1 t2-c2 c1-t1 t7-c1 t6-t3 t2-c4 t2-t1 t2-c3 t4-t8 c4-t2 t7-t1 t4-c4 deal "
        "t1-t7 c2-t3 t6-c2 deal t8-t6 t8-t2 t6-t4 t4-t6 t8-t4 t7-t2 t3-t8 t8-t1:2 t8-t5 c1-t2 "
        "t3-t1:2 t3-c1",
    ),
}


def position(name: str) -> Board:
    if name == "hand-astrocyte":
        return hand_built_astrocyte()
    if name == "hand-spider1":
        return hand_built_spider()
    if name in LOGS:
        return from_log(*LOGS[name])
    variant, seed = name.rsplit("-", 1)
    return Board.deal(variant, 2**64 - 1 if seed == "max" else int(seed))


# name: leaves at depth 1, 2, 3 (depth 3 of the big ones is left to PERFT_DEEP)
PERFT = {
    "astrocyte-0": (39, 1277),
    "spider1-0": (7, 57, 517),
    "spider2-0": (7, 56, 484),
    "spider4-0": (7, 54, 450),
    "astrocyte-123456": (4, 23, 203),
    "spider4-max": (4, 26, 197),
    "spider2-123456": (10, 104, 1129),
    "astrocyte-0-walk": (9, 97, 1099),
    "hand-astrocyte": (41, 1559),
    "hand-spider1": (32, 837, 23985),
}
PERFT_DEEP = {"astrocyte-0": 34615, "hand-astrocyte": 55969}

# the legal moves at the start of every pinned deal; the rank pattern of the shuffled pack is
# the same in every variant, so the Spider variants share their first moves for a seed
START_MOVES: dict[tuple[str, int], int | str] = {
    ("astrocyte", 0): 39,
    ("astrocyte", 123456): 38,
    ("astrocyte", 2**64 - 1): 35,
    ("spider1", 0): "t1-t3 t2-t9 t7-t4 t7-t6 t8-t10 t9-t1 deal",
    ("spider2", 0): "t1-t3 t2-t9 t7-t4 t7-t6 t8-t10 t9-t1 deal",
    ("spider4", 0): "t1-t3 t2-t9 t7-t4 t7-t6 t8-t10 t9-t1 deal",
    ("spider1", 123456): "t2-t8 t2-t10 t5-t3 t6-t7 t7-t4 deal",
    ("spider4", 123456): "t2-t8 t2-t10 t5-t3 t6-t7 t7-t4 deal",
    ("spider2", 2**64 - 1): "t2-t5 t2-t8 t2-t9 t5-t7 t7-t1 t7-t4 t8-t7 t9-t7 deal",
}


@pytest.mark.parametrize("name", sorted(PERFT))
def test_perft(name: str) -> None:
    board = position(name)
    before = board_state(board)
    assert tuple(perft(board, d) for d in range(1, len(PERFT[name]) + 1)) == PERFT[name]
    assert board_state(board) == before  # perft pushes and pops every move


@pytest.mark.parametrize("name", sorted(PERFT_DEEP))
def test_perft_depth_three(name: str) -> None:
    assert perft(position(name), 3) == PERFT_DEEP[name]


@pytest.mark.parametrize("key", sorted(START_MOVES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_legal_moves_at_the_start(key: tuple[str, int]) -> None:
    moves = Board.deal(*key).legal_moves()
    expected = START_MOVES[key]
    if isinstance(expected, int):
        assert len(moves) == expected
    else:
        assert [str(m) for m in moves] == expected.split()


def test_astrocyte_start_moves_in_detail() -> None:
    # seed 0, tops: t1 8S, t2 AH, t3 7S, t4 7H, t5 8H, t6 6D, t7 TC, t8 4C
    texts = [str(m) for m in Board.deal("astrocyte", 0).legal_moves()]
    assert [t for t in texts if not t.endswith(("c1", "c2", "c3", "c4"))] == [
        "t3-t1",
        "t3-t5",
        "t4-t1",
        "t4-t5",
        "t6-t3",
        "t6-t4",
        "deal",
    ]
    assert [t for t in texts if t.endswith("c3")] == [f"t{i}-c3" for i in range(1, 9)]
    assert len(texts) == 7 + 32


@pytest.mark.parametrize("name", sorted(PERFT))
def test_legal_moves_have_no_duplicates(name: str) -> None:
    moves = position(name).legal_moves()
    assert len(moves) == len(set(moves))


def random_positions(count: int, seed: int) -> list[Board]:
    rnd = random.Random(seed)
    boards = []
    variants = ["astrocyte", "spider1", "spider2", "spider4"]
    for k in range(count):
        board = Board.deal(variants[k % 4], rnd.randrange(2**64))
        for _ in range(rnd.randrange(0, 120)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rnd.choice(moves))
        boards.append(board)
    return boards


def refusal_view(board: Board) -> set[str]:
    """Every action of the notation that refusal() lets through (undo aside)."""
    texts = all_texts(board.variant.id)[:-1]
    return {t for t in texts if board.refusal(Move.parse(t, board.variant)) is None}


@pytest.mark.parametrize("seed", range(4))
def test_legal_moves_agree_with_refusal_and_with_the_oracle(seed: int) -> None:
    for board in [*random_positions(25, seed), hand_built_astrocyte(), hand_built_spider()]:
        generated = [str(m) for m in board.legal_moves()]
        assert set(generated) == refusal_view(board)
        assert sorted(generated) == sorted(legal_texts(board_state(board)))


def test_perft_agrees_with_the_oracle_at_depth_two() -> None:
    for board in (hand_built_astrocyte(), hand_built_spider(), position("spider2-123456")):
        oracle_leaves = 0
        for text in legal_texts(board_state(board)):
            board.push_text(text)
            oracle_leaves += len(legal_texts(board_state(board)))
            board.push_text("undo")
        assert oracle_leaves == perft(board, 2)
