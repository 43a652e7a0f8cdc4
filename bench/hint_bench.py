"""How long a practice hint takes once the player has left the deal's solution: the work
``games.services.hints`` does for it in the process, without the database's one-row reads.

    .venv/bin/python -m bench.hint_bench [--moves-off 1] [--per-deal 10] [--seconds 5]
                                         [--nodes 100000]

For each deal with a stored winning line in tests/data/solutions.json (spider1 and
astrocyte), positions are taken along the line every few actions; at each, ``--moves-off``
legal actions of the player's own are played (the first that is neither the line's next
nor undo nor a deal, each time). The hint is then timed as the service answers it: the
attempt's log replayed (``engine.replay_on``, as ``selectors.attempt_board``), the known
lines tried (``hint_lines.known_win``: on a line, or a step back onto it by a search
bounded in nodes), and only when they give nothing the solver, within ``--nodes`` and
``--seconds`` (the HINT_NODES and HINT_SECONDS defaults; with workers that search runs on
a worker, and the queue's wait is not in the figure). Printed: each hint's seconds and
where it came from, then the median, p90 and max, and how many came from a known line.
Single-threaded: note the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from games import engine, solver
from games.engine import Board
from games.services.hint_lines import known_win

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "tests" / "data" / "solutions.json"


def off_line_logs(
    variant: str, seed: int, line: list[str], count: int, moves_off: int
) -> list[tuple[int, list[str]]]:
    """``count`` logs that follow ``line`` for a while, then leave it by ``moves_off``
    actions of the player's own: (where they left it, the log)."""
    logs = []
    step = max(1, len(line) // (count + 1))
    for at in range(step, len(line) - 1, step):
        board = Board.deal(variant, seed)
        log = list(line[:at])
        for action in log:
            board.play(action)
        for _ in range(moves_off):
            others = [a for a in board.legal_actions() if a not in (line[at], "undo", "deal")]
            if not others:
                break
            board.play(others[0])
            log.append(others[0])
        else:
            logs.append((at, log))
        if len(logs) == count:
            break
    return logs


def hint_seconds(
    variant: str, seed: int, line: list[str], log: list[str], seconds: float, nodes: int
) -> tuple[float, str]:
    """One hint as the service computes it: (seconds, where the answer came from)."""
    began = time.perf_counter()
    board = Board.deal(variant, seed)
    engine.replay_on(board, log)
    known = known_win(board, Board.deal(variant, seed), [line])
    if known is not None:
        return time.perf_counter() - began, f"known line: {known.action}"
    result = solver.solve(board, seconds=seconds, max_nodes=nodes)
    return time.perf_counter() - began, f"solver: {result.status}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--per-deal", type=int, default=10)
    parser.add_argument("--moves-off", type=int, default=1)
    args = parser.parse_args()
    lines = json.loads(SOLUTIONS.read_text())
    times: list[float] = []
    from_lines = 0
    for key, line in lines.items():
        variant, seed = key.split(":")
        logs = off_line_logs(variant, int(seed), list(line), args.per_deal, args.moves_off)
        for at, log in logs:
            took, source = hint_seconds(
                variant, int(seed), list(line), log, args.seconds, args.nodes
            )
            times.append(took)
            from_lines += source.startswith("known")
            print(
                f"{key}, {args.moves_off} off the line after {at} actions: {took:.3f} s, {source}"
            )
    times.sort()
    p90 = times[max(0, round(0.9 * len(times)) - 1)]
    print(
        f"{len(times)} hints {args.moves_off} action(s) off the line: median "
        f"{statistics.median(times):.3f} s, p90 {p90:.3f} s, max {times[-1]:.3f} s; "
        f"{from_lines} from a known line, {len(times) - from_lines} searched; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
