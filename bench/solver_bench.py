"""Benchmark of the solver over a range of seeds, resumable.

    python -m bench.solver_bench --variant astrocyte --seeds 1-200 --seconds 60 --jobs 2

Each finished deal is appended as one JSON line to ``--out`` (default
``bench/results/solver-VARIANT.jsonl``); a rerun skips the seeds already there for the same
variant, limit and SOLVER_VERSION, so a long run can be stopped and continued. The summary
(solved %, unknown count, median / p90 time, median par, peak memory, and the thirds of the
solved deals' difficulty numbers, from which ``games.solver.api.THRESHOLDS`` are set) covers
every line of the file that matches.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from games.solver import SOLVER_VERSION, difficulty, solve


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def run_one(job: tuple[str, int, float, int]) -> dict[str, Any]:
    variant, seed, seconds, memory = job
    result = solve((variant, seed), seconds=seconds, max_memory_mb=memory)
    label, number = difficulty(result)
    return {
        "variant": variant,
        "seed": seed,
        "limit": seconds,
        "solver_version": SOLVER_VERSION,
        "status": result.status,
        "seconds": round(result.seconds, 3),
        "nodes": result.nodes,
        "par": result.par,
        "raw_length": result.raw_length,
        "peak_memory_mb": round(result.peak_memory_mb, 1),
        "difficulty": [label, number],
        "reason": result.reason,
    }


def read_done(path: str, variant: str, seconds: float) -> dict[int, dict[str, Any]]:
    done: dict[int, dict[str, Any]] = {}
    if not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            if (
                row.get("variant") == variant
                and row.get("limit") == seconds
                and row.get("solver_version") == SOLVER_VERSION
            ):
                done[row["seed"]] = row
    return done


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    times = [row["seconds"] for row in rows]
    solved = [row for row in rows if row["status"] == "solved"]
    pars = [row["par"] for row in solved]
    return {
        "deals": len(rows),
        "solved": len(solved),
        "solved_pct": round(100.0 * len(solved) / len(rows), 1) if rows else 0.0,
        "unknown": sum(1 for row in rows if row["status"] == "unknown"),
        "unsolvable": sum(1 for row in rows if row["status"] == "unsolvable"),
        "median_seconds": round(statistics.median(times), 2) if times else None,
        "p90_seconds": round(percentile(times, 0.9), 2) if times else None,
        "median_par": statistics.median(pars) if pars else None,
        "peak_memory_mb": max((row["peak_memory_mb"] for row in rows), default=0.0),
        # where api.THRESHOLDS come from: the thirds of the solved deals' difficulty numbers
        "difficulty_thirds": _thirds([row["difficulty"][1] for row in solved]),
    }


def _thirds(numbers: list[float]) -> list[float] | None:
    if not numbers:
        return None
    return [round(percentile(numbers, 1 / 3), 1), round(percentile(numbers, 2 / 3), 1)]


def _results(jobs: list[tuple[str, int, float, int]], workers: int) -> Iterator[dict[str, Any]]:
    if workers <= 1:
        for job in jobs:
            yield run_one(job)
        return
    # one process a deal: peak memory stays per deal, and a leak cannot build up
    with multiprocessing.get_context("spawn").Pool(workers, maxtasksperchild=1) as pool:
        yield from pool.imap_unordered(run_one, jobs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.solver_bench")
    parser.add_argument("--variant", default="astrocyte")
    parser.add_argument("--seeds", default="1-200", help="like 1-200 or 1-10,50")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--memory", type=int, default=1024, help="MiB a solve may use")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None, help="JSONL file, appended to")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    out = args.out or os.path.join("bench", "results", f"solver-{args.variant}.jsonl")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    seeds = parse_seeds(args.seeds)
    done = read_done(out, args.variant, args.seconds)
    todo = [(args.variant, s, args.seconds, args.memory) for s in seeds if s not in done]
    with open(out, "a", encoding="utf-8") as handle:
        for row in _results(todo, args.jobs):
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            done[row["seed"]] = row
            if not args.quiet:
                print(
                    f"{row['variant']} {row['seed']}: {row['status']} {row['seconds']}s "
                    f"nodes={row['nodes']} par={row['par']}",
                    file=sys.stderr,
                    flush=True,
                )
    rows = [done[s] for s in seeds if s in done]
    print(
        json.dumps(
            {
                "variant": args.variant,
                "seeds": args.seeds,
                "limit": args.seconds,
                "solver_version": SOLVER_VERSION,
                **summary(rows),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
