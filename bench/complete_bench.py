"""Speed of the complete search, the search behind proofs of loss (docs/solver.md, "Proofs
of loss"): classes of positions expanded a second of CPU, from the opening deal of a few
seeds of each variant, up to a budget (the classes are the same on every run and machine,
only the seconds differ; a search that finds a win stops early). A variant's figure is its
searches' classes over their CPU seconds, all seeds together. Compare the builds with
``ASTROCYTE_NATIVE=0``.

Run from the repository root::

    python -m bench.complete_bench                      # 150,000 classes, seeds 1-3
    python -m bench.complete_bench --classes 2000000 --variants spider4 --seeds 1
    python -m bench.complete_bench --classes 40000000 --variants spider4 --seeds 4 --after 64

``--after K`` starts from the position after the first K actions of the lost game
bench/lost_games_bench.py plays on each seed (its reference player), instead of the opening.
``--by-stage`` also counts the classes expanded at each stage of the game (deals left, runs
home), through a counting wrapper around the search's graph::

    python -m bench.complete_bench --classes 2000000 --variants spider4 --seeds 4 \
        --after 64 --by-stage

A search's line gives ``proven_lost``, the classes it proved lost on the way (its finished
components: "Proofs of loss", rule 6), even when its budget ran out. Each variant's line also
gives the process's peak memory so far (the tables of a search are freed when it ends, so the
peak is the largest search's).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections import Counter
from typing import Any

from bench.graph_probe import ProbedGraph
from bench.lost_games_bench import lost_game
from games.engine import Board, native
from games.engine.variants import VARIANTS
from games.solver.complete import exhaust, search_graph


def rate(
    variant: str, seed: int, classes: int, after: int | None, by_stage: bool = False
) -> dict[str, Any]:
    """One search from the opening of ``variant``'s deal ``seed``, or from the position after
    ``after`` actions of its lost game: classes, CPU, rate, and with ``by_stage`` the classes
    expanded at each stage of the game (the start among them)."""
    board = Board.deal(variant, seed)
    if after is not None:
        game = lost_game(variant, seed)
        if not game:
            raise SystemExit(f"the reference player wins {variant} deal {seed}: no lost game")
        for action in game[:after]:
            board.play(action)
    stages: Counter[tuple[int, int]] = Counter()

    def count(position: Board) -> None:
        stages[(position.deals_left, position.complete_foundations)] += 1

    lost: set[bytes] = set()
    began = time.process_time()
    if not by_stage:
        found = exhaust(board, classes, lost)
    else:
        count(board)  # the start
        found = search_graph(ProbedGraph(board.copy(keep_history=False), count), classes, lost)
    seconds = time.process_time() - began
    row: dict[str, Any] = {
        "variant": variant,
        "seed": seed,
        "after": after,
        "classes": found.nodes,
        "ended": "won" if found.won else "exhausted" if found.exhausted else "budget",
        "cpu_s": seconds,
        "classes_per_s": round(found.nodes / max(seconds, 1e-9)),
        "proven_lost": len(lost),
    }
    if by_stage:
        row["by_stage"] = [
            {"deals_left": deals, "runs_home": home, "classes": classes}
            for (deals, home), classes in sorted(stages.items(), reverse=True)
        ]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=150_000)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--after", type=int, default=None, help="actions of the lost game")
    parser.add_argument("--by-stage", action="store_true", help="classes by deals left, runs home")
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    print(json.dumps({"build": native.status(), "classes": args.classes}))
    for variant in args.variants.split(","):
        rows = [rate(variant, seed, args.classes, args.after, args.by_stage) for seed in seeds]
        for row in rows:
            print(json.dumps({**row, "cpu_s": round(row["cpu_s"], 2)}))
        classes = sum(row["classes"] for row in rows)
        seconds = max(sum(row["cpu_s"] for row in rows), 1e-9)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        summary = {"classes_per_s": round(classes / seconds), "peak_rss_mb": round(peak_mb)}
        print(json.dumps({"variant": variant, **summary}))


if __name__ == "__main__":
    main()
