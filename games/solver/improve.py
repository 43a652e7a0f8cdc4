"""The "improve par" phase: once a deal is proven, look for a shorter winning line.

The first line comes from a greedy search that ranks positions by how far they look from a
win and never by how many moves led there, so it is often a third longer than it needs to
be; local shortening (``shorten.py``) only removes detours a few moves long. Here the
staged search is run again with:

- a cost per move in every ranking (``Round.move_cost``): of two positions that look alike,
  the one reached in fewer moves comes first, and the deal candidates carry the length of
  their line;
- a bound: no line as long as the best one so far is looked at (``StagedSearch.longest``),
  so each new line found is shorter, and the bound tightens as lines are found;
- every weighting of the portfolio in turn (which one finds the shortest line is as chaotic
  as which one wins), at the narrow widths first.

Between those rounds: the stockless end of the best line searched again with a cost per
move (the last stage is where the first line wanders most), and a beam search by line
length (``beam.py``) bounded by the best line. ``IMPROVE_STEPS`` is the order.

Every line found is shortened and must be replayed to a win by the engine (``Board.refusal``
at each move, here and in ``solve``'s final check) before it replaces the best one. The
phase stops at its deadline, at its node budget or when the schedule is done; the best line
so far is kept. Budgets are in positions, so the result is the same on every run that the
deadline does not cut.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from games.engine import Board, Move
from games.engine.moves import DEAL_CODE

from .beam import beam_search
from .heuristic import ENDGAME
from .search import best_first
from .shorten import shorten, wins
from .staged import PORTFOLIO, PORTFOLIO_CELLS, Round, StagedSearch, Stopped

# (move cost, beam, stage positions, final positions), tried with every weighting in turn.
# What the phase tries, in order (cheap and most fruitful first; measured on Spider 4 suits
# and Astrocyte seeds 1-6): each entry runs with every weighting of the portfolio unless
# it names one. ("staged", move cost, beam, stage positions, final positions): a cost of 1
# a move shortens lines by about a tenth at these widths; 2 and more made the narrow rounds
# lose almost every deal. ("endgame", move cost, positions): the stockless end of the line
# searched again. ("beam", width, positions): ``beam.py``.
IMPROVE_STEPS: tuple[tuple[Any, ...], ...] = (
    ("staged", 1, 1, 1_000, 5_000),
    ("beam", 200, 120_000),
    ("endgame", 2, 30_000),
    ("staged", 1, 1, 2_000, 10_000),
    ("staged", 0, 1, 1_000, 5_000),
    ("endgame", 3, 30_000),
)
# The steps above in full generate about 450,000 positions; the pipeline gives the phase
# SOLVER_IMPROVE_NODES (250,000 by default: 30-60 s on a shared core).


@dataclass(slots=True)
class Improved:
    moves: list[Move]
    nodes: int = 0
    tries: int = 0  # searches run
    found: int = 0  # shorter lines found


class _Budget(Exception):
    """The deadline or the node budget is reached."""


class _Improver:
    def __init__(
        self, start: Board, moves: list[Move], deadline: float, max_nodes: int | None, cap: int
    ) -> None:
        self.start = start
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.cap = cap
        self.result = Improved(list(moves))
        self.portfolio = PORTFOLIO_CELLS if start.variant.cells else PORTFOLIO

    def left(self) -> int | None:
        """Positions left in the budget; raises when the phase must stop."""
        left = None if self.max_nodes is None else self.max_nodes - self.result.nodes
        if time.perf_counter() >= self.deadline or (left is not None and left <= 0):
            raise _Budget
        self.result.tries += 1
        return left

    def offer(self, line: list[Move] | None, start: Board | None = None, prefix: int = 0) -> None:
        """Keep ``line`` (from ``start``, after the best line's first ``prefix`` moves) if
        the whole line is then shorter and the engine replays it to a win."""
        if not line:
            return
        best = self.result.moves
        line = best[:prefix] + shorten(start or self.start, line, self.deadline)
        if len(line) < len(best) and wins(self.start, line):
            self.result.moves = line
            self.result.found += 1

    def staged(self, cost: int, beam: int, stage_nodes: int, final_nodes: int) -> None:
        for weights in self.portfolio:
            search = StagedSearch(
                self.start,
                deadline=self.deadline,
                max_nodes=self.left(),
                memory_cap_bytes=self.cap,
                progress=None,
                progress_every=1 << 62,
            )
            search.longest = len(self.result.moves)
            try:
                line = search.round(Round(beam, stage_nodes, final_nodes, weights, ENDGAME, cost))
            except Stopped:
                line = None
            self.result.nodes += search.total_nodes()
            self.offer(line)

    def endgame(self, cost: int, nodes: int) -> None:
        best = self.result.moves
        deals = [i for i, move in enumerate(best) if move.src == DEAL_CODE]
        last = deals[-1] + 1 if deals else 0
        board = self.start.copy(keep_history=False)
        for move in best[:last]:
            board.push(move)
        left = self.left()
        outcome = best_first(
            board,
            deadline=self.deadline,
            max_nodes=nodes if left is None else min(nodes, left),
            memory_cap_bytes=self.cap,
            weights=ENDGAME,
            macros=len(self.start.variant.suits) > 1,
            move_cost=cost,
            longest=len(best) - last,
        )
        self.result.nodes += outcome.nodes
        self.offer(outcome.moves, board, last)

    def beam(self, width: int, nodes: int) -> None:
        left = self.left()
        line, used = beam_search(
            self.start,
            width=width,
            weights=self.portfolio[0],
            longest=len(self.result.moves),
            max_nodes=nodes if left is None else min(nodes, left),
            deadline=self.deadline,
        )
        self.result.nodes += used
        self.offer(line)


def improve(
    start: Board,
    moves: list[Move],
    *,
    deadline: float,
    max_nodes: int,
    memory_cap_bytes: int,
) -> Improved:
    """A winning line from ``start`` no longer than ``moves`` (which must win), within
    ``max_nodes`` positions and the deadline."""
    improver = _Improver(start, moves, deadline, max_nodes, memory_cap_bytes)
    if start._stock_pos >= len(start._stock) or not moves:
        return improver.result  # a stockless position: the staged search does not apply
    try:
        for kind, *numbers in IMPROVE_STEPS:
            getattr(improver, kind)(*numbers)
    except _Budget:
        pass
    return improver.result
