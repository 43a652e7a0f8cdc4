"""Winnability survey (issue 44): how many random deals of each variant can be won, with the
whole deal known, as ``games.solver.decide`` decides them with a node budget per deal.

    .venv/bin/python -m bench.decide_survey [--deals 200] [--nodes 200000] [--first-seed 1]
        [--variants astrocyte,spider1,spider2,spider4] [--retry-nodes 0[,N2,...]]

Deals are seeds ``first-seed .. first-seed + deals - 1``. Per variant: winnable, proven
unwinnable and unknown counts, the share decided, and the winnable share with a 95 % Wilson
interval twice: among the decided deals (unbiased only if undecided deals are won as often
as decided ones: they are not, so read it with the bounds), and over all deals with each
unknown counted lost and then won (the honest bounds). One JSON line a variant, then a
summary table. The budget is in positions, so the verdicts are the same on any machine;
only the seconds printed depend on it.

``--retry-nodes N``: each deal left unknown is given to the heuristic solver once more with
``N`` positions and up to ``RETRY_MB`` of memory (no second complete search: it cannot exhaust
a whole deal in any budget here); the counts then say how many the retry won
(``won_on_retry``, each with the budget that won it). A list (``1000000,5000000``) retries a
deal still unknown with each budget in turn.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from games.engine import Board
from games.engine.variants import VARIANTS
from games.solver import solve
from games.solver.decide import NO_TIME_LIMIT, Verdict, decide

Z95 = 1.959963984540054
# A retry's memory: the solver's default (1 GB) would cut the table of a 20,000,000-position
# search short; this machine kind has 24 GiB.
RETRY_MB = 8192


def wilson(successes: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (0, 1 when ``total`` is 0)."""
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def survey(
    variant: str, seeds: range, nodes: int, retry_nodes: tuple[int, ...] = ()
) -> dict[str, object]:
    counts = dict.fromkeys(Verdict, 0)
    unwinnable: list[int] = []
    unknown_seeds: list[int] = []
    won_on_retry: list[tuple[int, int]] = []  # (seed, the budget that won it)
    began = time.perf_counter()
    for seed in seeds:
        decision = decide(Board.deal(variant, seed), nodes)
        verdict = decision.verdict
        if verdict == Verdict.UNKNOWN:
            unknown_seeds.append(seed)
            won_with = next((n for n in retry_nodes if _won_on_retry(variant, seed, n)), None)
            if won_with is not None:
                won_on_retry.append((seed, won_with))
                verdict = Verdict.WINNABLE
        counts[verdict] += 1
        if decision.unwinnable:
            unwinnable.append(seed)
    won, lost = counts[Verdict.WINNABLE], counts[Verdict.UNWINNABLE]
    unknown = counts[Verdict.UNKNOWN]
    decided = won + lost
    total = len(seeds)
    return {
        "variant": variant,
        "deals": total,
        "nodes_per_phase": nodes,
        "winnable": won,
        "unwinnable": lost,
        "unknown": unknown,
        "decided_share": round(decided / total, 3) if total else None,
        "winnable_among_decided": _interval(won, decided),
        "winnable_bounds_all": [
            round(wilson(won, total)[0], 3),
            round(wilson(won + unknown, total)[1], 3),
        ],
        "unwinnable_seeds": unwinnable,
        "unknown_at_first": unknown_seeds,
        "retry_nodes": retry_nodes,
        "won_on_retry": won_on_retry,
        "seconds": round(time.perf_counter() - began, 1),
    }


def _won_on_retry(variant: str, seed: int, nodes: int) -> bool:
    """The heuristic solver with ``nodes`` positions wins the deal (a line the engine's
    checked replay wins: ``solve`` reports ``solved`` only then)."""
    found = solve((variant, seed), seconds=NO_TIME_LIMIT, max_nodes=nodes, max_memory_mb=RETRY_MB)
    return bool(found.solved)


def _interval(successes: int, total: int) -> dict[str, float | None]:
    low, high = wilson(successes, total)
    share = successes / total if total else None
    return {
        "share": None if share is None else round(share, 3),
        "low": round(low, 3),
        "high": round(high, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--retry-nodes", default="0")
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.deals)
    retry_nodes = tuple(n for n in map(int, args.retry_nodes.split(",")) if n > 0)
    rows = []
    for variant in args.variants.split(","):
        row = survey(variant, seeds, args.nodes, retry_nodes)
        rows.append(row)
        print(json.dumps(row), flush=True)
    print("| variant | deals | winnable | unwinnable | unknown | decided | winnable (all deals) |")
    for row in rows:
        bounds = row["winnable_bounds_all"]
        print(
            f"| {row['variant']} | {row['deals']} | {row['winnable']} | {row['unwinnable']} "
            f"| {row['unknown']} | {row['decided_share']} | {bounds} |"
        )


if __name__ == "__main__":
    main()
