"""Does a nested search shorten the pipeline's pars (issue 44 item 4)? coolo/spider's
``pick``, by description: at each step of the best line, every legal move is ranked by the
length of a narrow beam's line from the position after it; the best whole line found so far
is followed, and replaced whenever a move and its beam line are shorter.

    .venv/bin/python -m bench.nested_pick_bench [--variant spider4] [--seeds 1-3] [--width 10]

Each deal starts from the par the pipeline stores (``solve`` with its improve phase, the
``SOLVER_IMPROVE_NODES`` default), so a shorter line is a gain over today's par. One JSON
line a deal (the par, the nested search's line once shortened, its positions and CPU
seconds), then the totals. Positions are counted, so the lines are the same on any machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Any

from bench.solver_bench import parse_seeds


def nested_pick(start: Any, line: list[Any], width: int) -> tuple[list[Any], int]:
    """The shortest line found by ranking each move of the best line's positions by the
    beam's line after it, and the positions the beams generated."""
    from games.solver.beam import beam_search

    board = start.copy(keep_history=False)
    best, played, nodes = list(line), 0, 0
    while not board.is_won:
        for move in board.legal_moves():
            if str(move) == "undo":
                continue
            child = board.copy(keep_history=False)
            child.push(move)
            longest = len(best) - played - 1
            if child.is_won:
                rest: list[Any] | None = []
            elif longest <= 0:
                continue
            else:
                rest, generated = beam_search(
                    child, width=width, longest=longest, max_nodes=10**9, deadline=math.inf
                )
                nodes += generated
            if rest is not None and played + 1 + len(rest) < len(best):
                best = [*best[:played], move, *rest]
        board.push(best[played])
        played += 1
    return best, nodes


def main() -> None:
    from games.engine import Board
    from games.solver import solve
    from games.solver.api import DEFAULT_IMPROVE_NODES
    from games.solver.shorten import shorten

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="spider4")
    parser.add_argument("--seeds", default="1-3", help="e.g. 1-6 or 1,3,5-8")
    parser.add_argument("--width", type=int, default=10)
    args = parser.parse_args()
    totals = {"par": 0, "nested": 0}
    for seed in parse_seeds(args.seeds):
        start = Board.deal(args.variant, seed)
        # the pipeline's par: its improve budget, and a time limit that does not bind here
        par = solve(start, seconds=600, improve_nodes=DEFAULT_IMPROVE_NODES).moves
        replay = start.copy(keep_history=False)
        line = [replay.push_text(action) for action in par]
        began = time.process_time()
        found, nodes = nested_pick(start, line, args.width)
        found = shorten(start, found, math.inf, thorough=True)
        row = {
            "variant": args.variant,
            "seed": seed,
            "width": args.width,
            "par": len(par),
            "nested": len(found),
            "positions": nodes,
            "cpu_seconds": round(time.process_time() - began, 1),
        }
        totals["par"] += len(par)
        totals["nested"] += len(found)
        print(json.dumps(row), flush=True)
    print(json.dumps({**totals, "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
