"""The stretch a lost game's analysis leaves open (issue 44): between the losing action it
names without a proof and the earliest action after which the game is proven lost, decided
again with a larger budget.

    .venv/bin/python -m bench.lost_games_bench > lost.jsonl
    .venv/bin/python -m bench.lost_gap_bench [--nodes 1000000] [--games astrocyte:3,...]
        [--where middle,...] lost.jsonl [more.jsonl ...]

For each game of the lost-games bench's output whose losing action is unproven, three
positions are decided by ``games.solver.decide`` (both phases, ``--nodes`` positions each,
nothing shared between positions): just after the losing action, the middle of the stretch,
and just before the proven bound (``lost_by``; the game's last position when it has none).
A winnable position there means the analysis named the losing action too early; a position
proven lost moves the bound earlier; unknown means neither side reached it with this budget
either. ``--games`` and ``--where`` keep only those games and positions (to give a few a
larger budget). One JSON line a position, then a summary line. Verdicts count positions, never
seconds, so they are the same on any machine.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from bench.lost_games_bench import lost_game

WHERE = ("after the losing action", "middle", "before the bound")


def stretch(row: dict[str, Any], actions: int) -> dict[str, int]:
    """The three positions (as numbers of actions played) of a game's open stretch."""
    first = row["lost_at"]["index"] + 1
    last = row["lost_by"]["index"] if row.get("lost_by") else actions
    return dict(zip(WHERE, (first, (first + last) // 2, last), strict=True))


def decide_stretch(row: dict[str, Any], nodes: int, wheres: set[str]) -> list[dict[str, Any]]:
    from games.engine import replay
    from games.solver.decide import decide

    variant, seed = row["game"].split(":")
    log = lost_game(variant, int(seed))
    out = []
    for where, step in stretch(row, len(log)).items():
        if wheres and where not in wheres:
            continue
        played = replay(variant, int(seed), log[:step])
        assert played.ok, played.error  # the reference player's own legal actions
        started = time.process_time()
        decision = decide(played.board, nodes)
        out.append(
            {
                "game": row["game"],
                "where": where,
                "actions_played": step,
                "verdict": str(decision.verdict),
                "nodes": decision.nodes,
                "cpu_seconds": round(time.process_time() - started, 1),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1_000_000, help="positions a phase")
    parser.add_argument("--games", default="", help="e.g. astrocyte:3,spider4:4 (all: empty)")
    parser.add_argument("--where", default="", help="of: " + ", ".join(WHERE))
    parser.add_argument("files", nargs="+", help="lost_games_bench output (JSON lines)")
    args = parser.parse_args()
    rows = []
    for name in args.files:
        with open(name) as lines:
            rows += [json.loads(line) for line in lines if line.startswith('{"game"')]
    games = set(filter(None, args.games.split(",")))
    wheres = set(filter(None, args.where.split(",")))
    if wheres - set(WHERE):
        parser.error(f"--where: not one of {', '.join(WHERE)}: {', '.join(wheres - set(WHERE))}")
    open_rows = [
        r
        for r in rows
        if r.get("lost_at") and not r["lost_at"]["proven"] and (not games or r["game"] in games)
    ]
    counts: dict[str, dict[str, int]] = {}
    for row in open_rows:
        for position in decide_stretch(row, args.nodes, wheres):
            print(json.dumps(position), flush=True)
            where = counts.setdefault(position["where"], {})
            where[position["verdict"]] = where.get(position["verdict"], 0) + 1
    summary = {"games": len(open_rows), "nodes": args.nodes, "verdicts": counts}
    print(json.dumps({**summary, "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
