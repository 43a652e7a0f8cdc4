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

Every line found is shortened and must be replayed to a win by the engine (``Board.refusal``
at each move, here and in ``solve``'s final check) before it replaces the best one. The
phase stops at its deadline, at its node budget or when the schedule is done; the best line
so far is kept. Budgets are in positions, so the result is the same on every run that the
deadline does not cut.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from games.engine import Board, Move

from .heuristic import ENDGAME
from .shorten import shorten, wins
from .staged import PORTFOLIO, PORTFOLIO_CELLS, Round, StagedSearch, Stopped

# (move cost, beam, stage positions, final positions), tried with every weighting in turn.
# A cost of 1 a move shortens lines by about a tenth at these widths; 2 and more made the
# narrow rounds lose almost every deal (Spider 4 suits seeds 1, 2, 4).
IMPROVE_ROUNDS = (
    (1, 1, 1_000, 5_000),
    (0, 1, 1_000, 5_000),
    (1, 1, 2_000, 10_000),
)


@dataclass(slots=True)
class Improved:
    moves: list[Move]
    nodes: int
    rounds: int  # rounds run (each one weighting at one width)
    found: int  # shorter lines found


def improve(
    start: Board,
    moves: list[Move],
    *,
    deadline: float,
    max_nodes: int | None,
    memory_cap_bytes: int,
) -> Improved:
    """A winning line from ``start`` no longer than ``moves`` (which must win)."""
    best = list(moves)
    result = Improved(best, 0, 0, 0)
    if start._stock_pos >= len(start._stock) or not best:
        return result  # a stockless position: the staged search does not apply
    portfolio = PORTFOLIO_CELLS if start.variant.cells else PORTFOLIO
    for cost, beam, stage_nodes, final_nodes in IMPROVE_ROUNDS:
        for weights in portfolio:
            left = None if max_nodes is None else max_nodes - result.nodes
            if time.perf_counter() >= deadline or (left is not None and left <= 0):
                return result
            search = StagedSearch(
                start,
                deadline=deadline,
                max_nodes=left,
                memory_cap_bytes=memory_cap_bytes,
                progress=None,
                progress_every=1 << 62,
            )
            search.longest = len(result.moves)
            spec = Round(beam, stage_nodes, final_nodes, weights, ENDGAME, cost)
            result.rounds += 1
            try:
                line = search.round(spec)
            except Stopped:
                line = None
            result.nodes += search.total_nodes()
            if line is None:
                continue
            line = shorten(start, line, deadline)
            if len(line) < len(result.moves) and wins(start, line):
                result.moves = line
                result.found += 1
    return result
