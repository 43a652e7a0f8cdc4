"""The writes of one rated day: ~100,000 change rows and as many rating upserts.

Django's ``bulk_create`` (with ``update_conflicts`` for the ratings) took 8-10 s of a
100,000-player day on PostgreSQL, most of it building model instances and SQL in Python
(bench/ratings_bench.py). Here the rows go as plain tuples: on PostgreSQL by ``COPY``
(the ratings into a temporary table, then one ``INSERT … SELECT … ON CONFLICT (player,
variant) DO UPDATE``); on SQLite by ``executemany`` of the same upsert, in batches. Both run
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection

from leaderboards.ratings.models import PlayerRating, RatingChange

BATCH_SIZE = 5000

CHANGE_COLUMNS = (
    "challenge_id",
    "player_id",
    "rank",
    "players",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
)
RATING_COLUMNS = (
    "player_id",
    "variant",
    "mu",
    "sigma",
    "rating",
    "rated_days",
    "last_challenge_id",
    "last_date",
)
RATING_UPDATED = RATING_COLUMNS[2:]


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _columns(names: Sequence[str]) -> str:
    return ", ".join(_q(name) for name in names)


def _batches(rows: Sequence[tuple[Any, ...]]) -> Iterable[Sequence[tuple[Any, ...]]]:
    for start in range(0, len(rows), BATCH_SIZE):
        yield rows[start : start + BATCH_SIZE]


def write_day(changes: Sequence[tuple[Any, ...]], ratings: Sequence[tuple[Any, ...]]) -> None:
    """``changes``: tuples of CHANGE_COLUMNS; ``ratings``: tuples of RATING_COLUMNS (one per
    player: inserted, or replacing the player's row of that variant)."""
    change_table = _q(RatingChange._meta.db_table)
    rating_table = _q(PlayerRating._meta.db_table)
    updates = ", ".join(f"{_q(c)} = excluded.{_q(c)}" for c in RATING_UPDATED)
    upsert = (
        f"INSERT INTO {rating_table} ({_columns(RATING_COLUMNS)}) {{source}} "
        f"ON CONFLICT ({_q('player_id')}, {_q('variant')}) DO UPDATE SET {updates}"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            raw = cursor.cursor  # psycopg's own, for COPY
            with raw.copy(f"COPY {change_table} ({_columns(CHANGE_COLUMNS)}) FROM STDIN") as copy:
                for row in changes:
                    copy.write_row(row)
            cursor.execute(
                f"CREATE TEMPORARY TABLE rating_upsert ON COMMIT DROP AS "
                f"SELECT {_columns(RATING_COLUMNS)} FROM {rating_table} WITH NO DATA"
            )
            with raw.copy(f"COPY rating_upsert ({_columns(RATING_COLUMNS)}) FROM STDIN") as copy:
                for row in ratings:
                    copy.write_row(row)
            cursor.execute(
                upsert.format(source=f"SELECT {_columns(RATING_COLUMNS)} FROM rating_upsert")
            )
            cursor.execute("DROP TABLE rating_upsert")
        else:
            insert = (
                f"INSERT INTO {change_table} ({_columns(CHANGE_COLUMNS)}) "
                f"VALUES ({', '.join(['%s'] * len(CHANGE_COLUMNS))})"
            )
            for batch in _batches(changes):
                cursor.executemany(insert, batch)
            # SQLite's upsert needs a WHERE after a SELECT source; VALUES needs none.
            values = upsert.format(source=f"VALUES ({', '.join(['%s'] * len(RATING_COLUMNS))})")
            for batch in _batches(ratings):
                cursor.executemany(values, batch)
