"""The embedded run's start-up preparation: no worker, each step said once as it goes.

Run as `scripts/dev.py run` runs it (`manage.py migrate`, then `manage.py dailies_prepare`,
in processes of their own on a fresh SQLite file), and read as the person starting it reads
it: every line the command prints, stdout and stderr together.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.games.conftest import QUICK_VARIANT
from tests.run_support import run_ok

ROOT = Path(__file__).resolve().parents[2]


# A time limit out of reach: the search stops at its positions, the same on any machine
# (each of 200 random Spider 1 suit deals was won within 100,000: docs/solver.md's survey).
LIMITS = ("--seconds", "600", "--nodes", "1000000")


def start_up_lines(
    tmp_path: Path, log_format: str, limits: tuple[str, ...] = LIMITS
) -> tuple[list[str], sqlite3.Connection]:
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "DAILY_VARIANTS": QUICK_VARIANT,
        "PRACTICE_VARIANTS": QUICK_VARIANT,
        "LOG_FORMAT": log_format,
        "LOG_LEVEL": "INFO",
    }
    env.pop("REDIS_URL", None)  # the embedded run: no worker
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    prepared = run_ok(
        [*manage, "dailies_prepare", "--days", "1", "--practice", "1", *limits],
        env,
        timeout=300,
    )
    return (prepared.stdout + prepared.stderr).splitlines(), sqlite3.connect(database)


def test_start_up_preparation_says_each_step_once(tmp_path: Path) -> None:
    lines, database = start_up_lines(tmp_path, "plain")
    deals = database.execute("SELECT id, pool, status, seed, nonce FROM games_deal").fetchall()
    daily = database.execute("SELECT deal_id FROM games_dailychallenge").fetchall()
    assert len(daily) == 1 and {pool for _, pool, *_ in deals} == {"daily", "practice"}
    assert all(status == "verified" for _, _, status, *_ in deals)
    # Each event on one line: the operator saw each twice (a log line, and the
    # command's own print of the same step).
    messages = [line.split(" ", 2)[-1] for line in lines]  # without the time
    assert [m for m, n in Counter(messages).items() if n > 1] == []
    for deal_id, *_ in deals:
        began = rf"verifying deal {deal_id}\b|deal {deal_id}: verification run"
        assert len([line for line in lines if re.search(began, line)]) == 1, lines
        ended = rf"deal {deal_id}:? verified\b"
        assert len([line for line in lines if re.search(ended, line)]) == 1, lines
    assert len([line for line in lines if "dailies prepared" in line]) == 1, lines
    assert len([line for line in lines if line.endswith(f": deal {daily[0][0]}")]) == 1
    for _, _, _, seed, nonce in deals:
        assert not any(seed in line or nonce in line for line in lines), "a seed in the logs"


def test_with_log_format_json_every_line_is_one_json_object(tmp_path: Path) -> None:
    lines, database = start_up_lines(tmp_path, "json")
    records = [json.loads(line) for line in lines]  # every line: one object, nothing else
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    messages = [r["message"] for r in records]
    assert len(messages) == len(set(messages))
    assert sum(m.startswith("dailies prepared:") for m in messages) == 1
    for seed, nonce in database.execute("SELECT seed, nonce FROM games_deal"):
        assert not any(seed in line or nonce in line for line in lines)


def test_a_position_budget_too_small_leaves_the_day_unfilled_and_says_so(tmp_path: Path) -> None:
    lines, database = start_up_lines(tmp_path, "plain", ("--seconds", "600", "--nodes", "1"))
    statuses = {status for (status,) in database.execute("SELECT status FROM games_deal")}
    assert statuses == {"unknown"}
    assert database.execute("SELECT count(*) FROM games_dailychallenge").fetchone() == (0,)
    assert any("node limit" in line for line in lines), lines
    assert any("still without a verified deal" in line for line in lines), lines
