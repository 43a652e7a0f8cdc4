"""A league's daily board: 500 members on a day of 100,000 attempts (issue 16, "Figures").

Run from the repository root, with PostgreSQL as in CI::

    .venv/bin/python -m bench.league_board_bench \
        --database-url postgres://postgres@127.0.0.1:5432/astrocyte_bench

The table is the daily board benchmark's (bench/leaderboard_bench.py: ``--attempts``
finished attempts a day over ``--days`` days, made once and kept; ``--refill`` remakes
it). A league of ``--members`` of those players, drawn with a fixed seed, is made (once).
Each figure is the median and the 99th percentile of ``--runs`` calls of the real reads,
Django ORM and all, after 10 warm-up calls: the league's whole day board (what
``GET /api/v1/leagues/<id>/challenges/<id>/`` and a league watcher's snapshot read), the
boards of the live flush (the top 50 of each of ``--leagues`` watched leagues), and
the league's all-time and streak boards.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from bench.leaderboard_bench import (
    SEED,
    _server_version,
    ensure_database,
    explain,
    fill,
    measure,
    setup_django,
)

TARGET_MS = 20.0


def make_leagues(count: int, members: int) -> list[int]:
    """``count`` leagues of ``members`` bench players each (made once, found after)."""
    from django.contrib.auth import get_user_model

    from leaderboards.models import League, LeagueMember

    user_model = get_user_model()
    player_ids = list(
        user_model.objects.filter(username__startswith="bench").values_list("id", flat=True)
    )
    rng = random.Random(SEED)
    ids = []
    for n in range(count):
        name = f"bench league {n}"
        league = League.objects.filter(name=name).first()
        if league is None:
            owner_ids = rng.sample(player_ids, members)
            league = League.objects.create(
                name=name, owner_id=owner_ids[0], invite_code=f"bench-{n}"
            )
            LeagueMember.objects.bulk_create(
                LeagueMember(league=league, player_id=player_id) for player_id in owner_ids
            )
        ids.append(league.pk)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/astrocyte_bench"
    )
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--leagues", type=int, default=20, help="watched leagues of the flush")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--refill", action="store_true", help="drop and refill the database")
    parser.add_argument("--plans", action="store_true", help="print the EXPLAIN ANALYZE plans")
    args = parser.parse_args()

    ensure_database(args.database_url, args.refill)
    setup_django(args.database_url)
    challenge_id = fill(args.attempts, args.days)
    league_ids = make_leagues(args.leagues, args.members)
    league_id = league_ids[0]
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE leaderboards_leaguemember")

    from django.contrib.auth import get_user_model

    from leaderboards import selectors
    from leaderboards.leagues.boards import league_day_board, league_day_boards

    board = league_day_board(challenge_id, league_id)
    rows = board.rows
    low = get_user_model().objects.get(username=rows[-5].username).pk  # near the bottom

    def day_board() -> Any:
        return league_day_board(challenge_id, league_id)

    def api_read() -> Any:  # what GET …/leagues/<id>/challenges/<id>/ reads (limit 50)
        return league_day_board(challenge_id, league_id, top=50, player_id=low)

    def flush() -> Any:
        return league_day_boards(challenge_id, league_ids, top=50)

    def alltime() -> Any:
        return selectors.alltime_board(days=30, league_id=league_id, today=_last_day())

    def streaks() -> Any:
        return selectors.streak_board("astrocyte", league_id=league_id, today=_last_day())

    def day_top() -> Any:  # the site's board, as bench/leaderboard_bench.py measures it
        return selectors.leaderboard_for_day(challenge_id, 50)

    figures = {
        "the league's board as the API reads it: top 50, counts, the rank of a member near "
        "the bottom": api_read,
        f"the league's whole day board, all {board.finished} rows ranked": day_board,
        f"the live flush: top 50 of {len(league_ids)} watched leagues": flush,
        "the league's all-time board, 30 days (alltime_board)": alltime,
        "the league's streak board (streak_board)": streaks,
        "for comparison, on the same machine at the same time: the day's top 50 "
        "(leaderboard_for_day)": day_top,
    }
    lines = [
        f"A league of {args.members} members; its challenge has "
        f"{selectors.players_counts(challenge_id)['finished']:,} counted attempts of "
        f"{args.attempts:,} ({args.days} such days in the table), PostgreSQL "
        f"{_server_version()}; {args.runs} timed calls each after 10 warm-up calls, "
        f"Django ORM included. Target: {TARGET_MS:.0f} ms p99 (the league's board).",
        "",
        "| read | median | p99 | max |",
        "|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for name, call in figures.items():
        figure = measure(call, args.runs)
        print(
            f"| {name} | {figure['median_ms']:.2f} ms | {figure['p99_ms']:.2f} ms "
            f"| {figure['max_ms']:.2f} ms |",
            flush=True,
        )
    if args.plans:
        print("\n== the league's board as the API reads it\n" + explain(api_read))
        print("\n== the league's all-time board\n" + explain(alltime))


def _last_day() -> Any:
    from games.models import DailyChallenge

    return DailyChallenge.objects.order_by("-date").values_list("date", flat=True).first()


if __name__ == "__main__":
    main()
