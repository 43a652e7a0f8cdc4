"""How often the game analysis decides a lost game (issue 44): lost games of the reference
player policy on every variant, analysed by the service with its node budgets.

    .venv/bin/python -m bench.lost_games_bench [--per-variant 5] [--first-seed 1]
        [--variants astrocyte,spider1,spider2,spider4] [--improve-nodes N | --no-solution]

The player is bench/scout_bench.py's reference policy (a move that turns a card up or
builds a same-suit run, else a few idle moves, then a deal; 10 % of choices a random legal
move), seeded by the deal's seed, playing until it is stuck, has made six idle moves in a
row with the stock dealt out (it gives up) or 400 actions; games it wins are passed over,
so each variant gets ``--per-variant`` lost games from the seeds ``first-seed``,
``first-seed + 1``, …. Each game is analysed as bench/analysis_bench.py does (a finished
practice attempt in a fresh SQLite database, the environment's ``ANALYSIS_POSITION_NODES``
and ``ANALYSIS_NODES``), its deal stored with the solution the pipeline would store (the
proof within SOLVER_NODES's default, then ``--improve-nodes``, SOLVER_IMPROVE_NODES's default,
for a shorter line; not counted in the game's CPU seconds), which the analysis starts from
as a known win; ``--no-solution`` stores none.

A game's verdict, as the replay page says it:

- ``lost here, proven``: the losing action, the position after it proven lost;
- ``never winnable``: the deal itself proven lost;
- ``still winnable``: the last position was winnable (a line from it was found): the game
  was given up, not lost by an action;
- ``lost here, unproven``: a winnable position and, one action later, no win found within
  the budget;
- ``undecided``: neither.

The first three are decided (with a proof or a line the engine replays); the issue's target
counts the first two among games that were lost by an action. A game lost here, unproven,
may still carry a proven bound (``lost_by``: the earliest action after which the game was
proven lost); the summary counts those and the median number of actions between the two
(the stretch where the losing action lies, neither side decided). One JSON line a game, then
a summary line: the counts, the share decided, the proven bounds, the median CPU seconds of
one core.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
from typing import Any

from bench.analysis_bench import Game, analyse_games
from bench.scout_bench import reference_game
from games.solver.api import DEFAULT_IMPROVE_NODES

MAX_ACTIONS = 400
GIVES_UP_AFTER = 6  # idle moves in a row with the stock dealt out
DECIDED = ("lost here, proven", "never winnable", "still winnable")


def lost_game(variant: str, seed: int) -> list[str]:
    """The reference player's game of a deal (its random choices seeded by the deal's), or
    [] when it won."""
    from games.engine import Board

    board = Board.deal(variant, seed)
    log = reference_game(
        board, random.Random(f"{variant}:{seed}"), MAX_ACTIONS, gives_up_after=GIVES_UP_AFTER
    )
    return [] if board.is_won else log


def stored_solution(variant: str, seed: int, improve_nodes: int) -> list[str]:
    """The line the pipeline stores for a deal it verified: its proof within the default
    SOLVER_NODES, then ``improve_nodes`` for a shorter line ([] when the deal is not
    proven, which the pipeline would never offer)."""
    from games.engine import Board
    from games.solver import solve
    from games.solver.api import DEFAULT_MAX_NODES

    found = solve(
        Board.deal(variant, seed),
        seconds=1e9,  # the node budgets decide, as on a machine that reaches them in time
        max_nodes=DEFAULT_MAX_NODES,
        improve_nodes=improve_nodes,
    )
    return list(found.moves) if found.solved else []


def lost_games(
    variants: list[str], per_variant: int, first_seed: int, improve_nodes: int | None
) -> list[Game]:
    """``improve_nodes``: each deal stored with the pipeline's solution made with that
    improve budget; None: with none (the analysis then starts from no known line)."""
    games: list[Game] = []
    for variant in variants:
        seed, found = first_seed, 0
        while found < per_variant:
            log = lost_game(variant, seed)
            if log:
                solution = (
                    [] if improve_nodes is None else stored_solution(variant, seed, improve_nodes)
                )
                games.append((f"{variant}:{seed}", variant, seed, solution, log))
                found += 1
            seed += 1
    return games


def verdict(row: dict[str, Any]) -> str:
    lost_at = row["lost_at"]
    if lost_at:
        return "lost here, proven" if lost_at["proven"] else "lost here, unproven"
    if row["first"] == "unsolvable":
        return "never winnable"
    if row["last"] == "solved":
        return "still winnable"
    return "undecided"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-variant", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--variants", default="astrocyte,spider1,spider2,spider4")
    parser.add_argument(
        "--improve-nodes",
        type=int,
        default=DEFAULT_IMPROVE_NODES,
        help="the stored solution's improve budget (SOLVER_IMPROVE_NODES's default)",
    )
    parser.add_argument(
        "--no-solution", action="store_true", help="store no solution with the deals"
    )
    args = parser.parse_args()
    improve = None if args.no_solution else args.improve_nodes
    games = lost_games(args.variants.split(","), args.per_variant, args.first_seed, improve)
    rows = analyse_games(games)
    counts: dict[str, int] = {}
    for row, game in zip(rows, games, strict=True):
        row["stored_solution"] = len(game[3]) or None
        row["verdict"] = verdict(row)
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
        print(json.dumps(row), flush=True)
    unproven = [r for r in rows if r["verdict"] == "lost here, unproven"]
    gaps = [r["lost_by"]["index"] - r["lost_at"]["index"] for r in unproven if r["lost_by"]]
    decided = sum(counts.get(k, 0) for k in DECIDED)
    lost_by_action = len(rows) - counts.get("still winnable", 0)
    proven = counts.get("lost here, proven", 0) + counts.get("never winnable", 0)
    summary = {
        "games": len(rows),
        "verdicts": counts,
        "decided_share": round(decided / len(rows), 3) if rows else None,
        "proven_share_of_games_lost_by_an_action": (
            round(proven / lost_by_action, 3) if lost_by_action else None
        ),
        "unproven_with_a_proven_bound": f"{len(gaps)} of {len(unproven)}",
        "median_actions_between_unproven_and_proven": statistics.median(gaps) if gaps else None,
        "median_cpu_seconds": statistics.median(r["cpu_seconds"] for r in rows) if rows else None,
        "max_cpu_seconds": max((r["cpu_seconds"] for r in rows), default=None),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
