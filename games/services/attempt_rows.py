"""The attempt row on the hot path of the play API: read under ``SELECT … FOR UPDATE`` and
written back, one hand-written statement each.

Django's ORM spent more CPU building the SQL of the same read (a query with two
``select_related`` joins and ~50 columns) than the rest of the post, and a model ``save``
again about a tenth of it (docs/api.md). Values still go through the model fields'
conversions both ways (the read applies the fields' converters; the write uses
``get_db_prep_save``), so JSON, dates and decimals are stored exactly as the ORM would.

What a post needs of the attempt's deal (variant and seed, to re-deal it) and challenge
(date and variant, to close the day) comes in the same statement and is attached as
partial model instances; any other field of them is loaded on access, as Django does for
deferred fields. The statement and the columns' converters (core/row_reader.py) are
prepared once a process.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connection, models

from core.row_reader import RowReader, is_row_id, model_field
from games.models import Attempt, DailyChallenge, Deal

# What the statement reads: every column of the attempt, then these of its deal and
# challenge, in this order.
ATTEMPT_FIELDS = tuple(field.attname for field in Attempt._meta.concrete_fields)
DEAL_FIELDS = ("variant", "seed")
CHALLENGE_FIELDS = ("date", "variant")
READER = RowReader(
    [(Attempt, name) for name in ATTEMPT_FIELDS]
    + [(Deal, name) for name in DEAL_FIELDS]
    + [(DailyChallenge, name) for name in CHALLENGE_FIELDS]
)


@functools.cache
def _lock_sql(by_player: bool) -> str:
    """The locking read (made once a process)."""
    quote = connection.ops.quote_name
    attempts, deals = quote(Attempt._meta.db_table), quote(Deal._meta.db_table)
    challenges = quote(DailyChallenge._meta.db_table)
    columns = READER.sql_columns({Attempt: "a", Deal: "d", DailyChallenge: "c"})
    sql = (
        f"SELECT {columns} "
        f"FROM {attempts} a JOIN {deals} d ON d.{quote('id')} = a.{quote('deal_id')} "
        f"LEFT JOIN {challenges} c ON c.{quote('id')} = a.{quote('challenge_id')} "
        f"WHERE a.{quote('id')} = %s"
    )
    if by_player:
        sql += f" AND a.{quote('player_id')} = %s"
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF a"
    return sql


PROGRESS_FIELDS = (
    "log",
    "action_times",
    "action_count",
    "last_action_at",
    "deals_left",
    "runs_completed",
    "cards_turned_up",
)


@functools.cache
def _progress_sql() -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    """The write-back of ``PROGRESS_FIELDS`` and those fields (made once a process)."""
    quote = connection.ops.quote_name
    fields = tuple(model_field(Attempt, name) for name in PROGRESS_FIELDS)
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    table = quote(Attempt._meta.db_table)
    return f"UPDATE {table} SET {assignments} WHERE {quote('id')} = %s", fields


@functools.cache
def _progress_if_sql() -> str:
    """The write-back, only onto a row that still holds the actions it was read with."""
    quote = connection.ops.quote_name
    sql, _ = _progress_sql()
    return f"{sql} AND {quote('action_count')} = %s AND {quote('ended_at')} IS NULL"


def save_progress_if_unchanged(attempt: Attempt, stored_count: int) -> bool:
    """``save_progress`` without a lock: written only if the row still holds
    ``stored_count`` actions and is open (a log only grows, so that count names the log the
    batch was decided on); whether it was written. One statement, its own transaction."""
    _, fields = _progress_sql()
    values = [
        field.get_db_prep_save(getattr(attempt, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(_progress_if_sql(), [*values, attempt.pk, stored_count])
        return bool(cursor.rowcount == 1)


def save_progress(attempt: Attempt) -> None:
    """Write what an accepted batch changes (``PROGRESS_FIELDS``) to an open attempt's row.

    An ended attempt is written by the service that ends it (it moves the board counts,
    games/services/board_counts.py), never here.
    """
    if attempt.ended_at is not None:
        raise ValueError(f"attempt {attempt.pk} has ended: its write moves the board counts")
    sql, fields = _progress_sql()
    values = [
        field.get_db_prep_save(getattr(attempt, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, attempt.pk])


def lock_attempt(
    attempt_id: int, player_id: int | None = None, *, by_player: bool
) -> Attempt | None:
    """The attempt (only the player's when ``by_player``), locked until the transaction ends.

    Only the attempt's row is locked, not its deal's or challenge's. None when there is no
    such attempt (or it is another player's), an id no row can have included.
    """
    if not is_row_id(attempt_id):
        return None
    with connection.cursor() as cursor:
        cursor.execute(_lock_sql(by_player), [attempt_id, player_id] if by_player else [attempt_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = READER.convert(row)
    alias, split = connection.alias, len(ATTEMPT_FIELDS)
    attempt = Attempt.from_db(alias, list(ATTEMPT_FIELDS), values[:split])
    deal_values = values[split : split + len(DEAL_FIELDS)]
    attempt.deal = Deal.from_db(alias, ["id", *DEAL_FIELDS], [attempt.deal_id, *deal_values])
    if attempt.challenge_id is not None:
        challenge_values = values[split + len(DEAL_FIELDS) :]
        attempt.challenge = DailyChallenge.from_db(
            alias, ["id", *CHALLENGE_FIELDS], [attempt.challenge_id, *challenge_values]
        )
    return attempt
