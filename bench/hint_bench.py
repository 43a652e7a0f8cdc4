"""How long a practice hint takes once the player has left every known line: the solver's
search from the position, as ``games.services.hints.position_hint`` runs it (in the request
in the embedded run, on a worker otherwise; the queue's wait is not in the figure).

    .venv/bin/python -m bench.hint_bench [--seconds 5] [--per-deal 10]

For each deal with a stored winning line in tests/data/solutions.json (spider1 and
astrocyte), positions are taken along the line every few actions; at each, one legal action
other than the line's next is played (a move off the line) and the solver is asked for a
win from there within ``--seconds`` (the HINT_SECONDS default). Printed: each search's
seconds and status, then the median and p90 over all positions and how many found a line.
CPU-bound and single-threaded: run it on a quiet machine and note the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from games import solver
from games.engine import Board

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "tests" / "data" / "solutions.json"


def off_line_positions(
    variant: str, seed: int, line: list[str], count: int
) -> list[tuple[int, Board]]:
    """``count`` positions along ``line``, each one action off it (the first legal action that
    is not the line's next and not an undo)."""
    positions = []
    step = max(1, len(line) // (count + 1))
    for at in range(step, len(line) - 1, step):
        board = Board.deal(variant, seed)
        for action in line[:at]:
            board.play(action)
        others = [a for a in board.legal_actions() if a not in (line[at], "undo")]
        if not others:
            continue
        board.play(others[0])
        positions.append((at, board))
        if len(positions) == count:
            break
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--per-deal", type=int, default=10)
    args = parser.parse_args()
    lines = json.loads(SOLUTIONS.read_text())
    times: list[float] = []
    found = 0
    for key, line in lines.items():
        variant, seed = key.split(":")
        for at, board in off_line_positions(variant, int(seed), list(line), args.per_deal):
            began = time.perf_counter()
            result = solver.solve(board, seconds=args.seconds)
            took = time.perf_counter() - began
            times.append(took)
            found += result.solved
            print(f"{key}, off the line after {at} actions: {took:.3f} s {result.status}")
    times.sort()
    p90 = times[max(0, round(0.9 * len(times)) - 1)]
    print(
        f"{len(times)} off-line hints: median {statistics.median(times):.3f} s, "
        f"p90 {p90:.3f} s, max {times[-1]:.3f} s; a line found for {found}; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
