"""Benchmark of the game analysis (games/services/analysis.py) on two deterministic games.

    .venv/bin/python -m bench.analysis_bench [--seconds 60]

- LOST: Astrocyte seed 4 (tests/data/solutions.json's stored line), its first 30 actions,
  then dealing the stock whenever it can, else filling a cell, else the first legal move
  (never undo), until 300 actions (or no move is left).
- WON: Spider 4 suits seed 6, the solver's line (found here, 60 s at most; 194 actions,
  longer than the 150 asked) with at least 10 detours (a move then ``undo``) inserted.

Each is stored as a finished practice attempt in a fresh SQLite database and analysed with
the node budgets of the environment (``ANALYSIS_POSITION_NODES``, ``ANALYSIS_NODES``: their
defaults unless set), which alone decide the verdicts; ``--seconds`` sets
``ANALYSIS_SECONDS``, now only the job's time limit under Celery (not used here). Prints the
worker seconds and the positions decided (solved / unsolvable / unknown) and the verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def lost_astrocyte() -> tuple[str, int, list[str], list[str]]:
    from games import engine
    from tests.games.lost_play import losing_log

    solution = json.loads((ROOT / "tests/data/solutions.json").read_text())["astrocyte:4"]
    log = losing_log(engine.Board.deal("astrocyte", 4), solution, kept=30, played=270)
    return "astrocyte", 4, solution, log


def won_spider4() -> tuple[str, int, list[str], list[str]]:
    from games import engine, solver

    result = solver.solve(("spider4", 6), seconds=60)
    assert result.status == solver.SOLVED, result
    line = list(result.moves)
    # detours (a move, then undo) spread from the start until 150 actions
    padded: list[str] = []
    board = engine.Board.deal("spider4", 6)
    extra = max(10, (150 - len(line)) // 2)  # at least 10 detours: 20 actions to save
    for i, action in enumerate(line):
        if extra and i % 2 == 0:
            moves = [m for m in board.legal_moves() if str(m) not in ("undo", "deal")]
            if moves:
                padded += [str(moves[0]), "undo"]
                extra -= 1
        padded.append(action)
        board.push_text(action)
    return "spider4", 6, line, padded


Game = tuple[str, str, int, list[str], list[str]]  # name, variant, seed, solution, log


def analyse_games(games: list[Game], seconds: float = 60.0) -> list[dict[str, Any]]:
    """Each game stored as a finished practice attempt in a fresh SQLite database and
    analysed by the service with the environment's node budgets; a row a game."""
    import django

    folder = tempfile.mkdtemp(prefix="analysis-bench-")
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
            "ANALYSIS_SECONDS": str(seconds),
            "LOG_LEVEL": "WARNING",
        }
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from games import engine
    from games.models import Attempt, AttemptAnalysis, Deal
    from games.selectors import analysis_lost_by
    from games.services.analysis import analysis_run
    from games.services.deals import deal_create

    call_command("migrate", verbosity=0)
    player = get_user_model().objects.create(username="bench")
    rows = []
    for name, variant, seed, solution, log in games:
        deal = Deal.objects.filter(variant=variant, seed=seed).first() or deal_create(
            variant=variant, seed=seed, pool=Deal.Pool.PRACTICE
        )
        Deal.objects.filter(pk=deal.pk).update(status=Deal.Status.VERIFIED, solution=solution)
        won = engine.replay(variant, seed, log).board.is_won
        attempt = Attempt.objects.create(
            player=player,
            deal=deal,
            kind=Attempt.Kind.PRACTICE,
            log=log,
            won=won,
            started_at=timezone.now(),
            ended_at=timezone.now(),
        )
        analysis = AttemptAnalysis.objects.create(attempt=attempt)
        started = time.process_time()
        analysis = analysis_run(analysis_id=analysis.pk)
        counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
        for position in analysis.positions:
            counts[position["status"]] += 1
        rows.append(
            {
                "game": name,
                "actions": len(log),
                "won": won,
                "worker_seconds": analysis.worker_seconds,
                "cpu_seconds": round(time.process_time() - started, 2),
                "positions": len(analysis.positions),
                **counts,
                "first": analysis.positions[0]["status"] if analysis.positions else None,
                "last": analysis.positions[-1]["status"] if analysis.positions else None,
                "lost_at": analysis.lost_at,
                "lost_by": analysis_lost_by(analysis),
                "saved": analysis.saved,
            }
        )
    return rows


def run(seconds: float) -> list[dict[str, Any]]:
    lost = lost_astrocyte()
    won = won_spider4()
    return analyse_games(
        [("LOST astrocyte", *lost), ("WON spider4", *won)],
        seconds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="ANALYSIS_SECONDS")
    args = parser.parse_args()
    for row in run(args.seconds):
        print(json.dumps(row))
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
