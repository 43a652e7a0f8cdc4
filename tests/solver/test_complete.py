"""The complete search (games/solver/complete.py) against a brute force, and its canonical form.

Every case is a small hand-built position (tests/solver/small_positions.py) whose reachable
positions the brute force enumerates: a lost verdict must be an exhausted search, a winnable
one a line the engine's checked path replays to a win, for each variant, with and without a
deal left in the stock.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from games.engine import Board, Move, board_from_state, replay_on
from games.solver.complete import (
    PROOF_RULES,
    PositionGraph,
    exhaust,
    position_class,
    search_graph,
)
from tests.solver.small_positions import TooLarge, brute_force_winnable, small_position

BRUTE_FORCE_CAP = 20_000  # exact positions: each case below has fewer reachable
SEARCH_NODES = 100_000
CHECKED = 40  # classes called lost checked by brute force, at most, a case

SPIDER = {"pieces": 3, "junk": 16}
SPIDER_DEAL = {"pieces": 2, "junk": 14, "deals": 1}
FEW = {"pieces": 3, "junk": 10}
MORE = {"pieces": 3, "junk": 14}
FREE_CELL = {"pieces": 2, "junk": 12, "free_cells": 1}
ASTRO_DEAL = {"pieces": 3, "junk": 14, "deals": 1}

# (variant, seed, shape, winnable): seeds picked once from the first few hundred of each shape
# so that both verdicts occur; the brute force re-derives the verdict every run
CASES: list[tuple[str, int, dict[str, int], bool]] = [
    ("spider1", 0, SPIDER, True),
    ("spider1", 2, SPIDER, True),
    ("spider1", 10, SPIDER, False),
    ("spider1", 137, SPIDER, False),
    ("spider1", 4, SPIDER_DEAL, True),
    ("spider1", 187, SPIDER_DEAL, False),
    ("spider2", 15, SPIDER, True),
    ("spider2", 41, SPIDER, False),
    ("spider2", 4, SPIDER_DEAL, True),
    ("spider2", 193, SPIDER_DEAL, False),
    ("spider4", 22, SPIDER, True),
    ("spider4", 41, SPIDER, False),
    ("spider4", 13, SPIDER_DEAL, True),
    ("spider4", 187, SPIDER_DEAL, False),
    ("astrocyte", 18, FEW, True),
    ("astrocyte", 21, FEW, True),
    ("astrocyte", 1, FEW, False),
    ("astrocyte", 19, FEW, False),
    ("astrocyte", 11, MORE, True),
    ("astrocyte", 73, MORE, False),
    ("astrocyte", 22, FREE_CELL, True),
    ("astrocyte", 58, ASTRO_DEAL, False),
]


@pytest.mark.parametrize(("variant", "seed", "shape", "winnable"), CASES)
def test_the_complete_search_agrees_with_brute_force(
    variant: str, seed: int, shape: dict[str, int], winnable: bool
) -> None:
    board = small_position(variant, seed, **shape)
    before = board.position_key()
    assert brute_force_winnable(board, BRUTE_FORCE_CAP) is winnable
    found = exhaust(board, SEARCH_NODES)
    assert board.position_key() == before  # the start is left alone
    if winnable:
        assert found.won and not found.exhausted
        assert found.moves is not None
        replayed = replay_on(board.copy(keep_history=False), [str(m) for m in found.moves])
        assert replayed.ok and replayed.won
    else:
        assert found.exhausted and not found.won
        assert found.nodes <= BRUTE_FORCE_CAP


@pytest.mark.parametrize(("variant", "seed", "shape", "winnable"), CASES)
@pytest.mark.parametrize("budget", [400, SEARCH_NODES])
def test_no_class_it_calls_lost_holds_a_winnable_position(
    variant: str, seed: int, shape: dict[str, int], winnable: bool, budget: int
) -> None:
    """Rule 6 (lost components): whatever the budget, and whether the search ends in a win,
    a proof or neither, no class it adds to ``lost`` holds a position the brute force wins
    from. Each class is checked on the position the search expanded it from (recorded as it
    searches), up to ``CHECKED`` classes a case."""
    board = small_position(variant, seed, **shape)
    graph = RecordingGraph(board.copy(keep_history=False))
    lost: set[bytes] = set()
    search_graph(graph, budget, lost)
    assert lost <= graph.positions.keys()
    checked = 0
    for key in sorted(lost, key=lambda k: graph.positions[k][0])[:CHECKED]:
        with contextlib.suppress(TooLarge):  # too large to tell: not counted
            assert not brute_force_winnable(graph.positions[key][1], BRUTE_FORCE_CAP)
            checked += 1
    assert checked or not lost


class RecordingGraph:
    """The complete search's own graph (a :class:`PositionGraph`, wrapped: the compiled
    build's classes take no interpreted subclass), keeping each class it expands with its
    number (the order of expansion) and the position it was expanded from."""

    def __init__(self, board: Board) -> None:
        self.graph = PositionGraph(board)
        self.board = board
        self.positions = {self.key(): (0, board.copy(keep_history=False))}

    def key(self) -> bytes:
        return self.graph.key()

    def moves(self) -> list[Move]:
        return self.graph.moves()

    def enter(self, move: Move) -> bool:
        return self.graph.enter(move)

    def leave(self) -> None:
        self.graph.leave()

    def expanded(self) -> None:
        self.graph.expanded()
        self.positions[self.key()] = (len(self.positions), self.board.copy(keep_history=False))

    def finished(self) -> None:
        self.graph.finished()


@pytest.mark.parametrize(
    ("variant", "seed", "shape"),
    [(v, s, shape) for v, s, shape, winnable in CASES if not winnable],
)
def test_a_later_positions_proof_shortens_an_earlier_ones(
    variant: str, seed: int, shape: dict[str, int]
) -> None:
    """As the analysis of a lost game does: the position after a move proven lost first,
    then the position before it with those classes known lost: the same verdict, fewer
    classes searched."""
    before = small_position(variant, seed, **shape)
    after = before.copy(keep_history=False)
    after.push(before.legal_moves()[0])
    lost: set[bytes] = set()
    assert exhaust(after, SEARCH_NODES, lost).exhausted
    alone = exhaust(before, SEARCH_NODES)
    helped = exhaust(before, SEARCH_NODES, lost)
    assert alone.exhausted and helped.exhausted
    assert helped.nodes < alone.nodes
    assert exhaust(before, SEARCH_NODES, lost).nodes == 0  # now known: nothing to search


def test_shapes_hold_a_deal_when_asked() -> None:
    with_deal = small_position("spider2", 4, **SPIDER_DEAL)
    assert with_deal.deals_left == 1
    assert small_position("astrocyte", 58, **ASTRO_DEAL).deals_left == 1
    assert small_position("spider2", 4, **SPIDER).deals_left == 0


def test_the_budget_is_in_nodes_and_the_same_every_time() -> None:
    board = Board.deal("astrocyte", 7)
    first = exhaust(board, 300)
    again = exhaust(board, 300)
    assert (first.won, first.exhausted, first.nodes) == (False, False, 300)
    assert (again.won, again.exhausted, again.nodes) == (False, False, 300)


def test_a_won_position_is_won_with_no_move() -> None:
    board = small_position("spider1", 0, **SPIDER)
    found = exhaust(board, SEARCH_NODES)
    assert found.moves is not None
    for move in found.moves:
        board.push(move)
    assert board.is_won
    done = exhaust(board, 1)
    assert done.won and done.moves == []


def _astrocyte(tableau: list[list[str]], cells: list[str | None], stock: list[str]) -> Board:
    state: dict[str, Any] = {
        "variant": "astrocyte",
        "tableau": tableau,
        "face_down": [0] * 8,
        "cells": cells,
        "foundations": [["KS", "QS", "JS"], ["KH"], *([[]] * 6)],
        "stock": stock,
        "won": False,
    }
    return board_from_state(state)


COLUMNS = [["9D", "4S"], ["AS"], ["9D"], ["2C"], ["KS"], ["6H"], ["QD"], ["2S"]]


def test_positions_that_differ_only_by_the_order_of_cells_are_one_class() -> None:
    one = _astrocyte(COLUMNS, ["3C", None, "5H", None], [])
    other = _astrocyte(COLUMNS, [None, "5H", None, "3C"], [])
    assert position_class(one) == position_class(other)


def test_columns_are_a_multiset_only_once_the_stock_is_empty() -> None:
    swapped = [COLUMNS[1], COLUMNS[0], *COLUMNS[2:]]
    assert position_class(_astrocyte(COLUMNS, [None] * 4, [])) == position_class(
        _astrocyte(swapped, [None] * 4, [])
    )
    deal = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    assert position_class(_astrocyte(COLUMNS, [None] * 4, deal)) != position_class(
        _astrocyte(swapped, [None] * 4, deal)
    )


def test_foundations_are_a_multiset() -> None:
    one = _astrocyte(COLUMNS, [None] * 4, [])
    state = one.state()
    state["foundations"] = [[], ["KH"], [], ["KS", "QS", "JS"], *([[]] * 4)]
    assert position_class(board_from_state(state)) == position_class(one)
    state["foundations"] = [["KS", "QS"], ["KH"], *([[]] * 6)]
    assert position_class(board_from_state(state)) != position_class(one)


def test_the_rules_are_named() -> None:
    assert "transpositions" in PROOF_RULES and "cells as a set" in PROOF_RULES
