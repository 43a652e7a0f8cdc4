"""Ratings (issue 31, "Figures"): rating one closed day of 100,000 attempts, and the rating
board read on 100,000 rated players.

Run from the repository root::

    .venv/bin/python -m bench.ratings_bench            # PostgreSQL (its own database)
    .venv/bin/python -m bench.ratings_bench --sqlite /tmp/ratings_bench.sqlite3

PostgreSQL: the database named by ``--database-url`` is created and migrated if missing
(never the application's own; ``--refill`` drops it first); rows are loaded with COPY.
SQLite: the file is created and filled with executemany. Either way: ``--attempts`` players
and ``--days`` closed dailies of one variant, each with one ranked attempt per player (the
leaderboard bench's draws: scores, times, ends, a few voided, 3 % with no action and so on
no board). Every run deletes the ratings and rates the days again, oldest first, with the
service itself (``ratings_rate_day``), timing each: wall and process CPU time, and where it
went (reading the board and the players' ratings, the Plackett-Luce math, the writes). The
first day inserts every rating; the later ones update them. Then ``rating_board`` (top 50)
is read ``--runs`` times: median and p99.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import time
from pathlib import Path
from typing import Any

from bench.leaderboard_bench import ensure_database, measure, setup_django

ROOT = Path(__file__).resolve().parent.parent
SEED = 20260101
FIRST_DATE = dt.date(2025, 1, 1)  # long closed


TURNED_UP_AT_MOST = 56  # astrocyte's face-down dealt cards (games.engine.scoring.face_down_dealt)


def attempt_row(
    rng: random.Random, player_id: int, deal_id: int, challenge_id: int, start: dt.datetime
) -> tuple[Any, ...]:
    """One finished ranked attempt, drawn as bench/leaderboard_bench.py draws them."""
    elapsed = round(rng.uniform(60, 1800), 3)
    actions = 0 if rng.random() < 0.03 else rng.randint(80, 400)
    won = actions > 0 and rng.random() < 0.4
    score = max(0, 500 - actions - int(elapsed // 2) + 100 * rng.randint(0, 8))
    score += 50 if won else 0
    started = start + dt.timedelta(seconds=rng.uniform(0, 80_000))
    ended = started + dt.timedelta(seconds=elapsed)
    voided = rng.random() < 0.002
    end_reason = "won" if won else "resigned"
    runs = rng.randint(0, 8)
    turned = TURNED_UP_AT_MOST if won else rng.randint(0, TURNED_UP_AT_MOST)
    return (
        player_id, deal_id, challenge_id, "ranked", "[]", "[]", started, ended, ended,
        end_reason, actions, elapsed, score, won, runs, 0, False, "", voided, None, "", False,
        turned, 0,
    )  # fmt: skip


ATTEMPT_COLUMNS = (
    "player_id, deal_id, challenge_id, kind, log, action_times, started_at, last_action_at, "
    "ended_at, end_reason, action_count, elapsed_seconds, score, won, runs_completed, "
    "deals_left, flagged, flag_reason, voided, voided_at, void_reason, cards_sealed, "
    "cards_turned_up, hints_used"
)
USER_COLUMNS = (
    "password, is_superuser, username, first_name, last_name, email, is_staff, is_active, "
    "date_joined"
)


def fill(attempts: int, days: int) -> list[int]:
    """The challenges' ids, oldest first; rows are loaded only if they are not there yet."""
    from django.db import connection, transaction

    from bench.bench_rows import verified_daily
    from games.models import Attempt, DailyChallenge

    existing = list(
        DailyChallenge.objects.filter(variant="astrocyte", date__gte=FIRST_DATE)
        .order_by("date")
        .values_list("pk", flat=True)
    )
    if len(existing) >= days and Attempt.objects.count() >= attempts * days:
        return existing[:days]
    postgres = connection.vendor == "postgresql"
    rng = random.Random(SEED)
    now = dt.datetime.now(dt.UTC)
    with transaction.atomic(), connection.cursor() as cursor:
        users = [
            ("!", False, f"bench{n:06}", "", "", "", False, True, now) for n in range(attempts)
        ]
        _load(cursor, postgres, "auth_user", USER_COLUMNS, users)
        cursor.execute("SELECT id FROM auth_user WHERE username LIKE 'bench%%' ORDER BY username")
        player_ids = [row[0] for row in cursor.fetchall()]
        ids = []
        for day in range(days):
            date = FIRST_DATE + dt.timedelta(days=day)
            daily = verified_daily(date, "astrocyte", SEED + day)
            deal = daily.deal
            ids.append(daily.pk)
            start = dt.datetime.combine(date, dt.time(), tzinfo=dt.UTC)
            rows = [attempt_row(rng, p, deal.pk, daily.pk, start) for p in player_ids]
            _load(cursor, postgres, "games_attempt", ATTEMPT_COLUMNS, rows)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if postgres else "ANALYZE")
    return ids


def _load(
    cursor: Any, postgres: bool, table: str, columns: str, rows: list[tuple[Any, ...]]
) -> None:
    if postgres:
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        marks = ", ".join("%s" for _ in columns.split(","))
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)


def rate_days(challenge_ids: list[int]) -> list[dict[str, float]]:
    from django.db import connection

    from leaderboards.ratings.models import PlayerRating, RatedDay, RatingChange
    from leaderboards.ratings.services import Timings, ratings_rate_day

    RatingChange.objects.all().delete()
    RatedDay.objects.all().delete()
    PlayerRating.objects.all().delete()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE leaderboards_playerrating")
    figures = []
    for challenge_id in challenge_ids:
        timings = Timings()
        wall, cpu = time.perf_counter(), time.process_time()
        outcome = ratings_rate_day(challenge_id=challenge_id, timings=timings)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert outcome == "rated", outcome
        players = RatedDay.objects.get(challenge_id=challenge_id).players
        figures.append(
            {
                "players": players,
                "wall": wall,
                "cpu": cpu,
                "read": timings.read,
                "math": timings.math,
                "write": timings.write,
            }
        )
        print(
            f"day {len(figures)}: {players:,} players rated in {wall:.2f} s "
            f"(process CPU {cpu:.2f} s; read {timings.read:.2f}, math {timings.math:.2f}, "
            f"write {timings.write:.2f})",
            flush=True,
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_ratings_bench"
    )
    parser.add_argument("--sqlite", type=Path, help="a SQLite file instead of PostgreSQL")
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=4, help="closed days (the board needs 3)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--refill", action="store_true", help="drop and refill the database")
    args = parser.parse_args()

    if args.sqlite:
        if args.refill and args.sqlite.exists():
            args.sqlite.unlink()
        url = f"sqlite:///{args.sqlite.resolve()}"
    else:
        url = args.database_url
        ensure_database(url, args.refill)
    setup_django(url)
    from django.db import connection

    began = time.perf_counter()
    challenge_ids = fill(args.attempts, args.days)
    print(f"{connection.vendor}: filled or found in {time.perf_counter() - began:.1f} s")
    days = rate_days(challenge_ids)

    from django.contrib.auth import get_user_model

    from leaderboards.ratings.selectors import player_ratings, rating_board, rating_history

    someone = get_user_model().objects.get(username=f"bench{args.attempts // 2:06}")
    reads = {
        "rating board, top 50 (rating_board)": measure(
            lambda: rating_board("astrocyte", 50), args.runs
        ),
        "a player's ratings (player_ratings)": measure(lambda: player_ratings(someone), args.runs),
        "a player's history (rating_history)": measure(
            lambda: rating_history(someone, "astrocyte"), args.runs
        ),
    }
    on_board = len(rating_board("astrocyte", 200))
    print()
    print("| day | players | wall | process CPU | read | math | write | checks, commit |")
    print("|---|---|---|---|---|---|---|---|")
    for n, day in enumerate(days, start=1):
        print(
            f"| {n} ({'inserts' if n == 1 else 'updates'}) | {day['players']:,} "
            f"| {day['wall']:.2f} s | {day['cpu']:.2f} s | {day['read']:.2f} s "
            f"| {day['math']:.2f} s | {day['write']:.2f} s "
            f"| {day['wall'] - day['read'] - day['math'] - day['write']:.2f} s |"
        )
    print()
    print(f"| read ({args.runs} timed calls; {on_board} of 200 shown) | median | p99 | max |")
    print("|---|---|---|---|")
    for name, figure in reads.items():
        print(
            f"| {name} | {figure['median_ms']:.2f} ms | {figure['p99_ms']:.2f} ms "
            f"| {figure['max_ms']:.2f} ms |"
        )


if __name__ == "__main__":
    main()
