"""Properties over random deals and random legal walks with undos (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    board_state,
    board_view,
    replay,
)

from .helpers import all_cards, build, full_pack, run
from .oracle import all_texts

FAST = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

variants = st.sampled_from(["astrocyte", "spider1", "spider2", "spider4"])
seeds = st.integers(min_value=0, max_value=2**64 - 1)


def walk(data: st.DataObject, board: Board, steps: int) -> list[str]:
    """Play ``steps`` random legal actions (undo included) through the checked path."""
    log = []
    for _ in range(steps):
        actions = board.legal_actions()
        if not actions:
            break
        # undo is offered often enough to matter, not so often that the walk goes nowhere
        text = data.draw(st.sampled_from(actions))
        board.push_text(text)
        log.append(text)
    return log


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_cards_are_conserved_by_every_action_and_undo(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    pack = full_pack(variant)
    assert all_cards(board) == pack
    for _ in range(60):
        actions = board.legal_actions()
        if not actions:
            break
        board.push_text(data.draw(st.sampled_from(actions)))
        assert all_cards(board) == pack
        assert sum(len(f) for f in board_state(board)["foundations"]) % 13 == 0


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_pop_after_push_restores_the_position_exactly(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    for _ in range(40):
        moves = board.legal_moves()
        if not moves:
            break
        before, before_state, before_stack = board.copy(), board_state(board), board.move_stack
        for move in moves:  # every legal move, not only the one played
            board.push(move)
            assert board.pop() == move
            assert board == before
            assert board_state(board) == before_state
            assert board.move_stack == before_stack
            assert board.legal_moves() == moves
        board.push(data.draw(st.sampled_from(moves)))


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_undo_steps_back_through_every_earlier_position(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    history = [board_state(board)]
    for _ in range(30):
        moves = board.legal_moves()
        if not moves:
            break
        board.push_text(str(data.draw(st.sampled_from(moves))))
        history.append(board_state(board))
    if board.is_won:  # no undo after the win
        return
    for expected in reversed(history[:-1]):
        board.push_text("undo")
        assert board_state(board) == expected
    assert "undo" not in board.legal_actions()


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_generated_moves_round_trip_through_their_text(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    for _ in range(30):
        moves = board.legal_moves()
        for move in moves:
            text = str(move)
            assert Move.parse(text, board.variant) == move
            assert Move.parse(text) == move
            assert str(Move.parse(text)) == text
        if not moves:
            break
        board.push(data.draw(st.sampled_from(moves)))


piles = st.one_of(
    st.builds(lambda n: f"t{n}", st.integers(1, 10)),
    st.builds(lambda n: f"c{n}", st.integers(1, 4)),
    st.builds(lambda n: f"f{n}", st.integers(1, 8)),
)


@settings(max_examples=300, deadline=None)
@given(src=piles, dst=piles, count=st.integers(1, 20))
def test_any_well_formed_text_round_trips(src: str, dst: str, count: int) -> None:
    text = f"{src}-{dst}" + (f":{count}" if count > 1 else "")
    try:
        move = Move.parse(text)
    except InvalidMoveError:
        assert src == dst or (count > 1 and not (src[0] == dst[0] == "t"))
        return
    assert str(move) == text
    assert Move.parse(str(move)) == move


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_replayed_log_always_ends_in_the_same_state(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    log = walk(data, board, 50)
    first = replay(variant, seed, log).as_dict()
    second = replay(variant, seed, " ".join(log)).as_dict()
    assert first == second
    assert first["ok"] and first["applied"] == first["actions"] == len(log)
    assert first["state"] == board_state(board)


def check_view(board: Board) -> None:
    state, view = board_state(board), board_view(board)
    assert list(view) == list(state)
    for column, seen, down in zip(
        state["tableau"], view["tableau"], state["face_down"], strict=True
    ):
        assert len(seen) == len(column)
        assert seen[:down] == [None] * down  # every face-down card hidden
        assert seen[down:] == column[down:]  # every face-up card shown
    assert view["stock"] == [None] * len(state["stock"])
    for key in ("variant", "face_down", "cells", "foundations", "won"):
        assert view[key] == state[key]
    hidden = [
        card
        for col, d in zip(state["tableau"], state["face_down"], strict=True)
        for card in col[:d]
    ] + state["stock"]
    visible = [card for col in view["tableau"] for card in col if card is not None]
    visible += [c for c in view["cells"] if c is not None]
    visible += [card for f in view["foundations"] for card in f]
    # the view shows exactly the visible cards: as many as the position has minus the hidden
    assert len(visible) + len(hidden) == sum(all_cards(board).values())


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_the_view_never_shows_a_face_down_or_stock_card(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    check_view(board)
    for _ in range(50):
        actions = board.legal_actions()
        if not actions:
            break
        board.push_text(data.draw(st.sampled_from(actions)))
        check_view(board)


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_refused_action_leaves_the_board_unchanged(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    texts = all_texts(variant)
    junk: list[Any] = ["x", "t0-t1", "t11-t1", "c5-t1", "T1-T2", "t1-t1", 7, None]
    for _ in range(25):
        legal = set(board.legal_actions())
        for text in data.draw(st.lists(st.sampled_from(texts + junk), min_size=5, max_size=15)):
            if text in legal:
                continue
            before, before_state, before_stack = board.copy(), board_state(board), board.move_stack
            try:
                board.push_text(text)
            except (IllegalMoveError, InvalidMoveError) as error:
                expected_kind = "illegal" if text in texts else "invalid"
                assert error.kind == expected_kind
            else:
                raise AssertionError(f"{text!r} was applied but not offered")
            assert board == before
            assert board_state(board) == before_state
            assert board.move_stack == before_stack
        actions = board.legal_actions()
        if not actions:
            break
        board.push_text(data.draw(st.sampled_from(actions)))


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_copy_is_independent(variant: str, seed: int, data: st.DataObject) -> None:
    board = Board.deal(variant, seed)
    walk(data, board, 20)
    original = board_state(board)
    twin = board.copy()
    assert twin == board and board_state(twin) == original
    walk(data, twin, 20)
    while len(twin):
        twin.pop()
    assert board_state(board) == original


def busy_astrocyte() -> Board:
    # runs one or two moves from home, cells, foundations to take back from, an empty column
    return build(
        tableau=[
            run("S", "K", "5"),
            "9D 4S 3S 2S",
            "QC JC " + run("H", "K", "2"),
            "AH",
            "5C " + run("D", "K", "3"),
            "2D AD",
            "8C 7C",
            "",
        ],
        face_down=[0, 1, 2, 0, 1],
        cells=["AS", None, "6C", None],
        foundations=[run("C"), "", run("S")],
        stock="9H 9H 9H 9H 9H 9H 9H 9H",
    )


def busy_spider() -> Board:
    return build(
        "spider2",
        tableau=[
            run("S", "K", "2"),
            "4H 2S",
            "QH " + run("H", "K", "2"),
            "AH",
            "9S AS",
            run("S", "K", "6"),
            "5S 4S 3S 2S",
            "",
            "7H 6H",
            "AS",
        ],
        face_down=[0, 1, 1, 0, 1, 0, 0],
        foundations=[run("H")],
        stock="AS AH AS AH AS AH AS AH AS AH",
    )


@FAST
@given(start=st.sampled_from([busy_astrocyte, busy_spider]), data=st.data())
def test_walks_through_runs_going_home(start: Any, data: st.DataObject) -> None:
    board = start()
    cards = all_cards(board)
    history = [board_state(board)]
    for _ in range(25):
        moves = board.legal_moves()
        if not moves:
            break
        before = board_state(board)
        for move in moves:
            board.push(move)
            assert all_cards(board) == cards
            board.pop()
            assert board_state(board) == before
        board.push_text(str(data.draw(st.sampled_from(moves))))
        history.append(board_state(board))
    if not board.is_won:
        for expected in reversed(history[:-1]):
            board.push_text("undo")
            assert board_state(board) == expected


def test_the_busy_positions_do_send_runs_home() -> None:
    # the walks above only test homes if runs can go home from these positions
    for start, log in ((busy_astrocyte, ["t2-t1:3", "c1-t1"]), (busy_spider, ["t5-t1"])):
        board = start()
        homes = board.complete_foundations
        for text in log:
            board.push_text(text)
        assert board.complete_foundations == homes + 1
