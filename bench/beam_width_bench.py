"""How much shorter a wider beam makes the par (issue 44, item 4): the beam search by line
length (``games/solver/beam.py``) from the deal at several widths, each line then shortened
as the improve phase does (``shorten``), on the same deals. One JSON line a deal (a width's
moves, positions and CPU seconds), then the totals a width. Positions and lines are the same
on every run and machine; only the seconds differ.

Run from the repository root::

    python -m bench.beam_width_bench --variant spider4 --widths 200,400,800 --seeds 1-6
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from bench.solver_bench import parse_seeds
from games.engine import Board
from games.solver.beam import beam_search
from games.solver.shorten import shorten, wins

LONGEST = 400  # no line this long is looked at (a Spider par is about 100-150 moves)
NO_DEADLINE = 10**9  # seconds: the budgets are in positions


def one(variant: str, seed: int, width: int, max_nodes: int) -> dict[str, Any]:
    board = Board.deal(variant, seed)
    began = time.process_time()
    line, positions = beam_search(
        board,
        width=width,
        longest=LONGEST,
        max_nodes=max_nodes,
        deadline=time.monotonic() + NO_DEADLINE,
    )
    moves = None
    if line:
        short = shorten(board, line, time.monotonic() + NO_DEADLINE)
        moves = len(short) if wins(board, short) else None
    return {"moves": moves, "positions": positions, "cpu": time.process_time() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="spider4")
    parser.add_argument("--widths", default="200,400,800")
    parser.add_argument("--seeds", default="1-6", help="e.g. 1-6 or 1,3,5-8")
    parser.add_argument("--max-nodes", type=int, default=20_000_000)
    args = parser.parse_args()
    widths = [int(w) for w in args.widths.split(",")]
    totals = {w: {"moves": 0, "lost": 0, "positions": 0, "cpu": 0.0} for w in widths}
    for seed in parse_seeds(args.seeds):
        row: dict[str, Any] = {"seed": seed}
        for width in widths:
            result = one(args.variant, seed, width, args.max_nodes)
            row[str(width)] = {**result, "cpu": round(result["cpu"], 1)}
            total = totals[width]
            total["positions"] += result["positions"]
            total["cpu"] += result["cpu"]
            if result["moves"] is None:
                total["lost"] += 1  # the beam lost every line (or the budget stopped it)
            else:
                total["moves"] += result["moves"]
        print(json.dumps(row), flush=True)
    for width, total in totals.items():
        print(json.dumps({"width": width, **total, "cpu": round(total["cpu"], 1)}))


if __name__ == "__main__":
    main()
