"""The daily board on 100,000 finished attempts (issue 4, "Figures"): top 50 and one rank.

Run from the repository root, with PostgreSQL as in CI::

    .venv/bin/python -m bench.leaderboard_bench \
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench --write-docs

The database named in the URL is created (and migrated) if missing and dropped-and-refilled
with ``--refill``; it is never the application's own. It holds one challenge with
``--attempts`` finished ranked attempts (one player each, scores, times and ends drawn from
a fixed seed, a few voided, 3 % ended with no action and so on no board) loaded with COPY,
the board's score counts recounted (``board_counts_rebuild``), then VACUUM ANALYZE. Each
figure is the median and the 99th percentile of ``--runs`` calls of the real selector
(``leaderboard_for_day`` and ``player_rank``), Django ORM and all, after a warm-up.
``--write-docs`` puts the figures into docs/benchmarks.md and the EXPLAIN ANALYZE plans into
docs/leaderboards.md, each between the bench's markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PLANS_DOC = ROOT / "docs" / "leaderboards.md"
PLANS_MARKERS = ("<!-- leaderboard_bench: begin -->", "<!-- leaderboard_bench: end -->")
FIGURES_DOC = ROOT / "docs" / "benchmarks.md"
FIGURES_MARKERS = (
    "<!-- leaderboard_bench figures: begin -->",
    "<!-- leaderboard_bench figures: end -->",
)
TARGET_MS = 20.0
SEED = 20260101


def ensure_database(url: str, refill: bool) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if name in ("", "postgres", "astrocyte"):
        sys.exit(f"refusing to use database {name!r}: give the benchmark its own")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and refill:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fill(attempts: int, days: int) -> int:
    """The measured challenge's id; loads the rows only if they are not there yet.

    ``days`` challenges (consecutive dates) get ``attempts`` attempts each, by the same
    players, so that the table looks like a service's after a few days and the planner
    chooses as it would there; the first one is measured.
    """
    from django.db import connection

    from bench.bench_rows import verified_daily
    from games.models import Attempt, DailyChallenge

    first = dt.date(2030, 1, 1)
    challenge = DailyChallenge.objects.filter(date=first, variant="astrocyte").first()
    if challenge and Attempt.objects.count() >= attempts * days:
        return challenge.pk
    rng = random.Random(SEED)
    now = dt.datetime.now(dt.UTC)
    # The same rows whether the tree ranks by progress or not (a tree before it has no column
    # for the cards turned up: they are drawn all the same and left out).
    progress = any(field.name == "cards_turned_up" for field in Attempt._meta.get_fields())
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor, for COPY
        users = io.StringIO()
        for n in range(attempts):
            users.write(f"!\tf\tbench{n:06}\t\t\t\tf\tt\t{now.isoformat()}\n")
        with raw.copy(
            "COPY auth_user (password, is_superuser, username, first_name, last_name, email, "
            "is_staff, is_active, date_joined) FROM STDIN"
        ) as copy:
            copy.write(users.getvalue())
        cursor.execute("SELECT id FROM auth_user WHERE username LIKE 'bench%%' ORDER BY username")
        player_ids = [row[0] for row in cursor.fetchall()]
        challenge_ids = []
        for day in range(days):
            date = first + dt.timedelta(days=day)
            daily = verified_daily(date, "astrocyte", SEED + day)
            deal = daily.deal
            challenge_ids.append(daily.pk)
            start = dt.datetime.combine(date, dt.time(), tzinfo=dt.UTC)
            rows = io.StringIO()
            for player_id in player_ids:
                rows.write(_attempt_line(rng, player_id, deal.pk, daily.pk, start, progress))
            with raw.copy(
                "COPY games_attempt (player_id, deal_id, challenge_id, kind, log, action_times, "
                "started_at, last_action_at, ended_at, end_reason, action_count, "
                "elapsed_seconds, score, won, runs_completed, deals_left, flagged, flag_reason, "
                "voided, voided_at, void_reason, cards_sealed"
                f"{', cards_turned_up' if progress else ''}) "
                "FROM STDIN"
            ) as copy:
                copy.write(rows.getvalue())
    # COPY bypasses the model, so the board's score counts are recounted once at the end.
    from games.services.board_counts import board_counts_rebuild

    board_counts_rebuild()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE games_attempt")
        cursor.execute("VACUUM ANALYZE auth_user")
    return challenge_ids[0]


def _attempt_line(
    rng: random.Random,
    player_id: int,
    deal_id: int,
    challenge_id: int,
    start: dt.datetime,
    progress: bool,
) -> str:
    elapsed = round(rng.uniform(60, 1800), 3)
    # A few started and left with no action: in the table, on no board (docs/rules.md).
    actions = 0 if rng.random() < 0.03 else rng.randint(80, 400)
    won = actions > 0 and rng.random() < 0.4
    # A game not won: some runs home and some of Astrocyte's 56 face-down cards turned up, more
    # of both the longer it was played; a won game has all of both.
    runs = 8 if won else min(7, int(rng.triangular(0, 8, actions / 60)))
    turned = 56 if won else min(56, int(rng.triangular(0, 57, min(56, actions / 7))))
    score = max(0, 500 - actions - int(elapsed // 2) + 100 * runs)
    score += 50 if won else 0
    started = start + dt.timedelta(seconds=rng.uniform(0, 80_000))
    ended = (started + dt.timedelta(seconds=elapsed)).isoformat()
    voided = "t" if rng.random() < 0.002 else "f"
    return (
        f"{player_id}\t{deal_id}\t{challenge_id}\tranked\t[]\t[]\t{started.isoformat()}\t"
        f"{ended}\t{ended}\t{'won' if won else 'resigned'}\t{actions}\t{elapsed}\t{score}\t"
        f"{'t' if won else 'f'}\t{runs}\t0\tf\t\t{voided}\t\\N\t\tf"
        + (f"\t{turned}\n" if progress else "\n")
    )


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(call: Any, runs: int) -> dict[str, float]:
    for _ in range(10):
        call()
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return {
        "median_ms": statistics.median(times),
        "p99_ms": percentile(times, 0.99),
        "max_ms": max(times),
    }


def explain(call: Any) -> str:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        call()
    plans = []
    with connection.cursor() as cursor:
        for query in queries.captured_queries:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + query["sql"])
            plans.append(query["sql"] + "\n\n" + "\n".join(row[0] for row in cursor.fetchall()))
    return "\n\n".join(plans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_bench"
    )
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument(
        "--days", type=int, default=5, help="challenges of --attempts each; the first is measured"
    )
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--refill", action="store_true", help="drop and refill the database")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()

    ensure_database(args.database_url, args.refill)
    setup_django(args.database_url)
    began = time.perf_counter()
    challenge_id = fill(args.attempts, args.days)
    filled = time.perf_counter() - began

    from django.contrib.auth import get_user_model

    from leaderboards import selectors

    counts = selectors.players_counts(challenge_id)
    board = selectors.board_attempts(challenge_id).order_by(*selectors.BOARD_ORDER)
    # A player near the bottom: the rank query counts almost the whole board.
    low = board.values_list("player_id", flat=True)[counts["finished"] - 10]
    middle = board.values_list("player_id", flat=True)[counts["finished"] // 2]
    low_player = get_user_model().objects.get(pk=low)
    middle_player = get_user_model().objects.get(pk=middle)

    def top() -> Any:
        return selectors.leaderboard_for_day(challenge_id, 50)

    def rank_low() -> Any:
        return selectors.player_rank(challenge_id, low_player)

    def rank_middle() -> Any:
        return selectors.player_rank(challenge_id, middle_player)

    def counts_call() -> Any:
        return selectors.players_counts(challenge_id)

    figures = {
        "top 50 (leaderboard_for_day)": measure(top, args.runs),
        "rank of a player in the middle (player_rank)": measure(rank_middle, args.runs),
        "rank of a player near the bottom (player_rank)": measure(rank_low, args.runs),
        "counts playing/finished (players_counts)": measure(counts_call, args.runs),
    }
    lines = [
        f"Board: {counts['finished']:,} counted attempts on one challenge "
        f"({args.attempts:,} loaded, the rest voided or ended with no action; "
        f"{args.days} such days in the table, "
        f"{args.attempts * args.days:,} attempts), PostgreSQL "
        f"{_server_version()}; {args.runs} timed calls each after 10 warm-up calls, "
        "Django ORM included. Target: 20 ms each.",
        "",
        "| query | median | p99 | max |",
        "|---|---|---|---|",
    ]
    for name, figure in figures.items():
        lines.append(
            f"| {name} | {figure['median_ms']:.2f} ms | {figure['p99_ms']:.2f} ms "
            f"| {figure['max_ms']:.2f} ms |"
        )
    table = "\n".join(lines)
    print(f"filled or found in {filled:.1f} s\n")
    print(table)
    plans = {
        "Top 50": explain(top),
        "A player's rank (near the bottom)": explain(rank_low),
        "Counts": explain(counts_call),
    }
    if args.write_docs:
        write_between(FIGURES_DOC, FIGURES_MARKERS, ["", table, ""])
        body = [""]
        for title, plan in plans.items():
            body += [f"#### {title}", "", "```", plan, "```", ""]
        write_between(PLANS_DOC, PLANS_MARKERS, body)
    else:
        for title, plan in plans.items():
            print(f"\n== {title}\n{plan}")


def write_between(doc: Path, markers: tuple[str, str], lines: list[str]) -> None:
    """Replace what lies between the two marker lines of ``doc`` with ``lines``."""
    begin, end = markers
    text = doc.read_text()
    start, stop = text.index(begin), text.index(end) + len(end)
    doc.write_text(text[:start] + "\n".join([begin, *lines, end]) + text[stop:])
    print(f"\nwritten to {doc.relative_to(ROOT)}")


def _server_version() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return str(cursor.fetchone()[0]).split()[0]


if __name__ == "__main__":
    main()
