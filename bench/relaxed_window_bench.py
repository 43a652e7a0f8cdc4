"""Do windows whose target is any position as good for what follows shorten the pipeline's
pars (issue 44 item 4)?

The improve phase's windows (``games.solver.window``) look for a shorter way from position
i to exactly position j of the line. Here a window is done as soon as it reaches a position
from which the rest of the line, replayed by card identity (``games.solver.tracking``),
still wins: a position "as good for what follows", not the same one. The search is the
windows' own (``WindowSearch``: the pairs the target lacks as its estimate), with
``--slack`` pairs allowed to differ from the target's at the window's end.

    .venv/bin/python -m bench.relaxed_window_bench [--variant spider4] [--seeds 1-6]

Each deal starts from the par the pipeline stores (``solve`` with its improve phase), kept
in ``--cache`` so that a second run compares the same lines. One JSON line a deal (the
par, the line after the relaxed windows and a thorough ``shorten``, the positions searched
and CPU seconds), then the totals. Positions are counted, so the lines are the same on any
machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path
from typing import Any

from bench.solver_bench import parse_seeds


class LineStillWins:
    """``WindowSearch``'s ``accept``: a position (reached from ``tracked``'s by ``path``)
    from which ``rest`` (card identity steps) replays to a win in fewer than ``limit``
    moves in all; ``found`` is then the new rest of the line, the path included."""

    def __init__(self, tracked: Any, rest: list[Any], limit: int) -> None:
        self.tracked = tracked
        self.rest = rest
        self.limit = limit
        self.tests = 0
        self.failed: set[Any] = set()
        self.found: list[Any] | None = None

    def __call__(self, board: Any, path: list[Any]) -> bool:
        from games.solver.tracking import play_steps
        from games.solver.window import line_key

        key = line_key(board)
        if key in self.failed:
            return False
        self.tests += 1
        trial = self.tracked.copy()
        for move in path:
            trial.push(move)
        played = play_steps(trial, self.rest)
        if played is not None and trial.board.is_won and len(path) + len(played) < self.limit:
            self.found = [*path, *played]
            return True
        self.failed.add(key)
        return False


def relaxed_windows(
    start: Any, moves: list[Any], *, window: int, step: int, slack: int, budget: int
) -> tuple[list[Any], int, int]:
    """``moves`` with each window re-searched for a position as good for what follows."""
    from games.engine.moves import DEAL_CODE
    from games.solver.tracking import Tracked, describe_line
    from games.solver.window import WindowSearch

    line = list(moves)
    steps = describe_line(start, line)
    tracked = Tracked(start)  # the position before line[i]
    nodes = tests = 0
    i = 0
    while i < len(line):
        j = i
        target = tracked.board.copy(keep_history=False)
        while j < len(line) and j - i < window and line[j].src != DEAL_CODE:
            target.push(line[j])
            j += 1
        if j - i >= 2:
            accept = LineStillWins(tracked, steps[j:], len(line) - i)
            search = WindowSearch(tracked.board, target, budget, math.inf, slack, accept)
            search.run(j - i)
            nodes += search.nodes
            tests += accept.tests
            if accept.found is not None:
                line[i:] = accept.found
                steps = describe_line(start, line)
        for move in line[i : i + step]:
            tracked.push(move)
        i += step
    return line, nodes, tests


def main() -> None:
    from games.engine import Board
    from games.solver import solve
    from games.solver.api import DEFAULT_IMPROVE_NODES
    from games.solver.shorten import shorten, wins

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="spider4")
    parser.add_argument("--seeds", default="1-6", help="e.g. 1-6 or 1,3,5-8")
    parser.add_argument("--window", type=int, default=20)
    parser.add_argument("--step", type=int, default=5)
    parser.add_argument("--slack", type=int, default=3)
    parser.add_argument("--budget", type=int, default=10_000, help="positions a window")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--cache", default="/tmp/relaxed_window_pars.json")
    args = parser.parse_args()
    cache_path = Path(args.cache)
    cache: dict[str, list[str]] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    totals = {"par": 0, "relaxed": 0}
    for seed in parse_seeds(args.seeds):
        start = Board.deal(args.variant, seed)
        key = f"{args.variant}:{seed}"
        if key not in cache:
            cache[key] = list(solve(start, seconds=600, improve_nodes=DEFAULT_IMPROVE_NODES).moves)
            cache_path.write_text(json.dumps(cache))
        par = cache[key]
        replay = start.copy(keep_history=False)
        line = [replay.push_text(action) for action in par]
        began = time.process_time()
        nodes = tests = 0
        for _ in range(args.passes):
            found, n, t = relaxed_windows(
                start,
                line,
                window=args.window,
                step=args.step,
                slack=args.slack,
                budget=args.budget,
            )
            nodes, tests = nodes + n, tests + t
            found = shorten(start, found, math.inf, thorough=True)
            if len(found) >= len(line):
                break
            line = found
        assert wins(start, line)
        row = {
            "variant": args.variant,
            "seed": seed,
            "par": len(par),
            "relaxed": len(line),
            "positions": nodes,
            "goal_tests": tests,
            "cpu_seconds": round(time.process_time() - began, 1),
        }
        totals["par"] += len(par)
        totals["relaxed"] += len(line)
        print(json.dumps(row), flush=True)
    print(json.dumps({**totals, "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
