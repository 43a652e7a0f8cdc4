"""The solver: winning lines replay to a win in the engine, limits hold, dead ends are proven."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from games.engine import Board, Move, board_from_state, replay, replay_on
from games.solver import SOLVER_VERSION, SolveResult, difficulty, solve, verify
from games.solver.outcome import Status, StopReason
from games.solver.shorten import shorten
from tests.solver.small_positions import position_where_a_deal_waits

# (variant, seed) pairs the solver wins in well under a few seconds (see docs/solver.md)
QUICK_DEALS = [
    ("spider1", 2),
    ("spider1", 5),
    ("spider1", 9),
    ("spider2", 1),
    ("astrocyte", 4),
    ("astrocyte", 9),
]


@pytest.mark.parametrize(("variant", "seed"), QUICK_DEALS)
def test_solved_lines_replay_to_a_win(variant: str, seed: int) -> None:
    result = solve((variant, seed), seconds=30)
    assert result.status == "solved"
    assert result.par == len(result.moves) > 0
    replayed = replay(variant, seed, result.moves)
    assert replayed.ok and replayed.won
    assert verify(variant, seed, result.moves)
    assert result.nodes > 0 and result.peak_memory_mb > 0


@pytest.mark.parametrize(("variant", "seed"), [("spider1", 2), ("astrocyte", 4)])
def test_same_deal_same_result(variant: str, seed: int) -> None:
    first = solve((variant, seed), seconds=30)
    second = solve((variant, seed), seconds=30)
    assert (first.moves, first.nodes) == (second.moves, second.nodes)
    assert difficulty(first) == difficulty(second)


def test_solve_from_a_board_leaves_it_alone_and_starts_there() -> None:
    board = Board.deal("spider1", 5)
    board.push(board.legal_moves()[0])
    before = board.position_key()
    result = solve(board, seconds=20)
    assert board.position_key() == before
    assert result.status == "solved"
    check = board.copy()
    for text in result.moves:
        check.push_text(text)
    assert check.is_won


def test_verify_refuses_a_losing_or_broken_log() -> None:
    result = solve(("spider1", 2), seconds=20)
    assert not verify("spider1", 2, result.moves[:-1])
    assert not verify("spider1", 3, result.moves)
    assert not verify("spider1", 2, ["t1-t1", *result.moves])


def _dead_spider(columns: list[list[str]]) -> Board:
    state: dict[str, Any] = {
        "variant": "spider1",
        "tableau": columns,
        "face_down": [0] * 10,
        "cells": [],
        "foundations": [[] for _ in range(8)],
        "stock": [],
        "won": False,
    }
    return board_from_state(state)


@pytest.mark.parametrize("variant", ["spider1", "spider4"])
def test_a_run_is_split_to_fill_the_column_a_waiting_deal_needs(variant: str) -> None:
    board = position_where_a_deal_waits(variant)
    assert board.refusal(Move.parse("deal")) == "no deal while a column is empty: fill t10 first"
    result = solve(board, seconds=600, max_nodes=100_000, fill_for_deal=True)
    assert result.status == "solved", result.reason
    assert replay_on(board.copy(), result.moves).won
    assert "deal" in result.moves


def test_filling_for_a_deal_leaves_a_position_with_cards_face_down_as_it_was() -> None:
    # an opening: the option changes nothing, so hints and the analysis search it as before
    plain, filling = (
        solve(("spider1", 2), seconds=600, max_nodes=50_000, fill_for_deal=fill)
        for fill in (False, True)
    )
    assert plain.solved and (filling.moves, filling.nodes) == (plain.moves, plain.nodes)


def test_a_focused_search_that_runs_dry_hands_over_to_the_other_searches() -> None:
    # Spider 1 suit's flat search (first while stock remains) refuses every move here; the
    # staged and the unfocused searches then get the budget, as in the other variants.
    result = solve(position_where_a_deal_waits("spider1"), seconds=600, max_nodes=5_000)
    assert result.reason == StopReason.NODE_LIMIT
    assert result.nodes >= 5_000


def test_a_dead_position_is_unsolvable() -> None:
    # a few spades that can shuffle around (an empty column appears) but never make a run
    board = _dead_spider(
        [["5S"], ["AS"], ["3S"], ["2S"], ["KS"], ["9S"], ["9S"], ["QS"], ["7S"], ["TS"]]
    )
    assert board.legal_moves()
    result = solve(board, seconds=20)
    assert result.status == "unsolvable"
    assert result.moves == [] and result.nodes > 1


def test_a_position_without_moves_is_unsolvable() -> None:
    board = _dead_spider([["AS"]] * 10)
    assert solve(board, seconds=5).status == "unsolvable"


def test_a_dead_astrocyte_position_with_cells_is_unsolvable() -> None:
    state: dict[str, Any] = {
        "variant": "astrocyte",
        "tableau": [["4H"], ["AS"], ["9D"], ["2C"], ["KS"], ["6H"], ["QD"], ["2S"]],
        "face_down": [0] * 8,
        "cells": ["3C", None, None, None],
        "foundations": [[] for _ in range(8)],
        "stock": [],
        "won": False,
    }
    result = solve(board_from_state(state), seconds=30)
    assert result.status == "unsolvable"


def test_the_time_limit_is_honoured(search_clock: Callable[[float], Any]) -> None:
    # The solver's clock moves a millisecond a read (tests/conftest.py): the half second is
    # a number of the search's periodic checks, the same on any machine.
    search_clock(0.001)
    result = solve(("spider4", 12), seconds=0.5)
    assert result.status == "unknown"
    assert result.reason == StopReason.TIME_LIMIT
    assert 0 < result.seconds <= 0.5  # stopped at the search's share of it


def test_the_node_limit_is_honoured() -> None:
    result = solve(("spider4", 1), seconds=30, max_nodes=2000)
    assert result.status == "unknown"
    assert 2000 <= result.nodes < 2100


def test_the_memory_limit_stops_the_search() -> None:
    # a deal that takes far more positions than 2 MiB hold (spider4 1 now fits in them)
    result = solve(("astrocyte", 12), seconds=30, max_memory_mb=2)
    assert result.status == "unknown"
    assert "memory" in result.reason or result.reason.startswith("exhausted")


def test_progress_is_reported() -> None:
    seen: list[int] = []
    solve(("spider4", 1), seconds=2, progress=lambda p: seen.append(p.nodes), progress_every=500)
    assert seen and seen == sorted(seen)


def _with_detours(start: Board, moves: list[Move]) -> list[Move]:
    """The line with a move-and-move-back inserted wherever one exists."""
    board = start.copy()
    padded: list[Move] = []
    for move in moves:
        for detour in board.legal_moves():
            if detour.src >= 10 or detour.dst >= 10 or detour.is_deal:
                continue
            back = Move(detour.dst, detour.src, detour.count)
            key = board.position_key()
            board.push(detour)
            if board.refusal(back) is None:
                board.push(back)
                if board.position_key() == key:
                    padded += [detour, back]
                    board.pop()
                    board.pop()
                    break
                board.pop()
            board.pop()
        padded.append(move)
        board.push(move)
    return padded


def test_shortening_removes_detours_and_keeps_the_win() -> None:
    start = Board.deal("spider1", 2)
    result = solve(("spider1", 2), seconds=20)
    line = [Move.parse(text, start.variant) for text in result.moves]
    padded = _with_detours(start, line)
    assert len(padded) > len(line) + 10
    assert verify("spider1", 2, [str(m) for m in padded])
    shorter = shorten(start, padded, time.perf_counter() + 20)
    assert len(shorter) <= len(line)
    assert verify("spider1", 2, [str(m) for m in shorter])


def test_shortening_never_lengthens() -> None:
    start = Board.deal("spider1", 9)
    result = solve(("spider1", 9), seconds=20)
    assert result.status == "solved"
    assert result.raw_length >= len(result.moves)
    line = [Move.parse(text, start.variant) for text in result.moves]
    assert len(shorten(start, line, time.perf_counter() + 20)) <= len(line)


def test_difficulty_labels() -> None:
    easy = SolveResult(Status.SOLVED, ["deal"] * 100, nodes=500)
    hard = SolveResult(Status.SOLVED, ["deal"] * 300, nodes=5_000_000)
    assert difficulty(easy)[0] == "easy"
    assert difficulty(hard)[0] == "hard"
    assert difficulty(easy)[1] < difficulty(hard)[1]
    assert difficulty(SolveResult(Status.UNKNOWN, nodes=10))[0] == "hard"
    assert isinstance(SOLVER_VERSION, int)


def test_difficulty_labels_are_relative_to_the_variant() -> None:
    # a typical solved Astrocyte deal (par 138, 15,000 positions): medium among Astrocyte
    # deals, hard among Spider 1 suit deals, which take fewer moves and positions
    typical = SolveResult(Status.SOLVED, ["deal"] * 138, nodes=15_000)
    number = difficulty(typical)[1]
    assert difficulty(typical, "astrocyte") == ("medium", number)
    assert difficulty(typical, "spider1") == ("hard", number)
    assert (
        difficulty(SolveResult(Status.SOLVED, ["deal"] * 89, nodes=1_000), "spider1")[0] == "easy"
    )


def test_the_staged_search_wins_astrocyte_with_a_node_budget() -> None:
    """The staged search's budgets are in positions: a node limit gives the same answer."""
    from games.solver.staged import staged_search

    board = Board.deal("astrocyte", 9)
    outcome = staged_search(
        board, deadline=time.perf_counter() + 30, max_nodes=200_000, memory_cap_bytes=500 << 20
    )
    assert outcome.status == "solved"
    assert replay("astrocyte", 9, [str(move) for move in outcome.moves]).won
    assert board.position_key() == Board.deal("astrocyte", 9).position_key()
    stopped = staged_search(
        board, deadline=time.perf_counter() + 30, max_nodes=1_000, memory_cap_bytes=500 << 20
    )
    assert stopped.status == "unknown" and stopped.reason == "node limit"
    assert stopped.nodes < 3_000  # checked every few dozen expansions
