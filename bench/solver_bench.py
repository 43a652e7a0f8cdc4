"""Benchmark of the solver over a range of seeds, resumable.

    python -m bench.solver_bench --variant astrocyte --seeds 1-200 --seconds 60 --jobs 2
    python -m bench.solver_bench --variant spider4 --seeds 1-30 --baseline main

Each deal runs in a process of its own (its peak RSS is the deal's). ``--improve-nodes N``
is the improve-par phase's budget (default SOLVER_IMPROVE_NODES's, as in the pipeline;
0 skips it, as for a hint).
``--baseline REF`` also runs the previous version's bench (a git worktree of REF, made in
the temporary directory unless there) on the same seeds, one deal at a time after ours,
and prints its par beside ours.

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
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

from config import env
from games.engine import native
from games.solver import SOLVER_VERSION, difficulty, solve


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


Job = tuple[str, int, float, int, int]


def run_one(job: Job) -> dict[str, Any]:
    variant, seed, seconds, memory, improve = job
    result = solve((variant, seed), seconds=seconds, max_memory_mb=memory, improve_nodes=improve)
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
        "improve": improve,
        "proven_seconds": round(result.proven_seconds, 3),
        "first_par": result.first_par,
        "improve_nodes": result.improve_nodes,
        "peak_memory_mb": round(result.peak_memory_mb, 1),
        # the whole process (one per deal): interpreter, tables, everything
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "difficulty": [label, number],
        "reason": result.reason,
        # "compiled" (games/engine/native.py) or "python: why not"
        "build": native.status(),
    }


def read_done(
    path: str, variant: str, seconds: float, improve: int = 0
) -> dict[int, dict[str, Any]]:
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
                and row.get("improve", 0) == improve
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
    walls = [row["seconds"] for row in solved]
    proven = [row.get("proven_seconds", row["seconds"]) for row in solved]
    rss = [row["peak_rss_mb"] for row in rows if "peak_rss_mb" in row]
    return {
        "deals": len(rows),
        "solved": len(solved),
        "solved_pct": round(100.0 * len(solved) / len(rows), 1) if rows else 0.0,
        "unknown": sum(1 for row in rows if row["status"] == "unknown"),
        "unsolvable": sum(1 for row in rows if row["status"] == "unsolvable"),
        "median_seconds": round(statistics.median(times), 2) if times else None,
        "p90_seconds": round(percentile(times, 0.9), 2) if times else None,
        "median_seconds_solved": round(statistics.median(walls), 2) if walls else None,
        "p90_seconds_solved": round(percentile(walls, 0.9), 2) if walls else None,
        # until the first line was proven (and shortened), before the improve phase
        "median_proven_seconds": round(statistics.median(proven), 2) if proven else None,
        "p90_proven_seconds": round(percentile(proven, 0.9), 2) if proven else None,
        "median_par": statistics.median(pars) if pars else None,
        "median_first_par": _median([row.get("first_par") for row in solved]),
        "peak_memory_mb": max((row["peak_memory_mb"] for row in rows), default=0.0),
        "peak_rss_mb": max(rss, default=None),
        # where api.THRESHOLDS come from: the thirds of the solved deals' difficulty numbers
        "difficulty_thirds": _thirds([row["difficulty"][1] for row in solved]),
    }


def _median(values: list[Any]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def beside(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, Any]:
    """Our par beside the baseline's on the seeds both solved, and each side's own median."""
    old = {row["seed"]: row["par"] for row in theirs if row["status"] == "solved"}
    both = [(row["par"], old[row["seed"]]) for row in ours if row["seed"] in old and row["par"]]
    return {
        "baseline_version": theirs[0]["solver_version"] if theirs else None,
        "baseline_solved": len(old),
        "baseline_median_par": _median(list(old.values())),
        "both_solved": len(both),
        "median_par_both": _median([new for new, _ in both]),
        "baseline_median_par_both": _median([previous for _, previous in both]),
        "median_par_ratio": round(_median([new / previous for new, previous in both]) or 0, 3),
    }


def run_baseline(ref: str, args: argparse.Namespace, out: str) -> list[dict[str, Any]]:
    """The bench of git ``ref`` on the same seeds (its own checkout), its rows."""
    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", root, "rev-parse", "--short", ref], capture_output=True, text=True, check=True
    ).stdout.strip()
    where = os.path.join(tempfile.gettempdir(), f"solver-baseline-{commit}")
    if not os.path.isdir(where):
        subprocess.run(
            ["git", "-C", root, "worktree", "add", "--detach", where, commit], check=True
        )
    command = [
        sys.executable,
        "-m",
        "bench.solver_bench",
        "--variant",
        args.variant,
        "--seeds",
        args.seeds,
        "--seconds",
        str(args.seconds),
        "--memory",
        str(args.memory),
        "--jobs",
        str(args.jobs),
        "--out",
        os.path.abspath(out),
        "--quiet",
    ]
    subprocess.run(command, cwd=where, check=True, stdout=subprocess.DEVNULL)
    seeds = set(parse_seeds(args.seeds))
    rows: dict[int, dict[str, Any]] = {}
    with open(out, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            same = row["variant"] == args.variant and row["limit"] == args.seconds
            if same and row["seed"] in seeds:
                rows[row["seed"]] = row  # the last run of a seed counts
    return list(rows.values())


def _thirds(numbers: list[float]) -> list[float] | None:
    if not numbers:
        return None
    return [round(percentile(numbers, 1 / 3), 1), round(percentile(numbers, 2 / 3), 1)]


def _results(jobs: list[Job], workers: int) -> Iterator[dict[str, Any]]:
    # one process a deal: peak RSS is the deal's, and a leak cannot build up
    with multiprocessing.get_context("spawn").Pool(max(1, workers), maxtasksperchild=1) as pool:
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
    parser.add_argument(
        "--improve-nodes",
        dest="improve",
        type=int,
        default=env.ENVIRONMENT_VARIABLES["SOLVER_IMPROVE_NODES"].default,
        help="positions for the improve-par phase once proven (0: none, as a hint)",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="REF",
        help="also run git REF's bench on these seeds and show its par beside ours",
    )
    args = parser.parse_args(argv)
    out = args.out or os.path.join("bench", "results", f"solver-{args.variant}.jsonl")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    seeds = parse_seeds(args.seeds)
    done = read_done(out, args.variant, args.seconds, args.improve)
    todo = [
        (args.variant, s, args.seconds, args.memory, args.improve) for s in seeds if s not in done
    ]
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
    report = {
        "variant": args.variant,
        "seeds": args.seeds,
        "limit": args.seconds,
        "solver_version": SOLVER_VERSION,
        "improve": args.improve,
        "load_average": [round(load, 2) for load in os.getloadavg()],
        **summary(rows),
    }
    if args.baseline:
        base_out = out.removesuffix(".jsonl") + f"-baseline-{args.baseline}.jsonl"
        report.update(beside(rows, run_baseline(args.baseline, args, base_out)))
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
