"""Keeps ``BoardScoreCount`` and ``BoardProgressCount`` equal to the boards, written by the
services in the transaction that finishes, voids or corrects an attempt (or deletes one, with
its player's account).

An attempt counts on its challenge's board while it is ranked, finished with at least one
action and not voided (``BOARD_CONDITION``, the rows of the ``attempt_board_order`` index).
Each such write says what the attempt counted as before (``board_key``: its outcome,
progress and score, read under the row lock) and the counts move by one with an atomic
upsert, so concurrent finishes never lose a count. The hot path's own write
(``attempt_rows.save_progress``) writes only open attempts, which count on no board, and
refuses any other. After a bulk load or a write outside the services,
``board_counts_rebuild`` recounts.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.db.models import Count

from games.models import BOARD_CONDITION, Attempt, BoardProgressCount, BoardScoreCount

# (challenge id, won, runs home, cards turned up, score): a board's order before time.
BoardKey = tuple[int, bool, int, int, int]
KEY_COLUMNS = ("challenge_id", "won", "runs_completed", "cards_turned_up", "score")
PROGRESS_COLUMNS = KEY_COLUMNS[:-1]  # the progress counts' key: the same without the score


def board_key(attempt: Attempt) -> BoardKey | None:
    """(challenge id, won, runs home, cards turned up, score) while the attempt counts on a
    board, else None."""
    if (
        attempt.kind == Attempt.Kind.RANKED
        and attempt.challenge_id is not None
        and not attempt.voided
        and attempt.ended_at is not None
        and attempt.action_count > 0
        and attempt.score is not None
    ):
        return (
            attempt.challenge_id,
            bool(attempt.won),
            attempt.runs_completed,
            attempt.cards_turned_up,
            attempt.score,
        )
    return None


def _add(key: BoardKey, delta: int) -> None:
    """Move the score count of ``key`` and the progress count of its group by ``delta``."""
    _upsert(BoardScoreCount._meta.db_table, KEY_COLUMNS, key, delta)
    _upsert(BoardProgressCount._meta.db_table, PROGRESS_COLUMNS, key[:-1], delta)


def _upsert(
    table_name: str, key_columns: tuple[str, ...], key: tuple[Any, ...], delta: int
) -> None:
    quote = connection.ops.quote_name
    table = quote(table_name)
    attempts = quote("attempts")
    columns = ", ".join(quote(name) for name in key_columns)
    placeholders = ", ".join(["%s"] * (len(key_columns) + 1))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({columns}, {attempts}) "
            f"VALUES ({placeholders}) ON CONFLICT ({columns}) "
            f"DO UPDATE SET {attempts} = {table}.{attempts} + EXCLUDED.{attempts}",
            [*key, delta],
        )


def board_counts_follow(before: BoardKey | None, attempt: Attempt) -> None:
    """The attempt counted as ``before`` and has just been written: move the counts.

    Called by the services inside the transaction of the write.
    """
    after = board_key(attempt)
    if before == after:
        return
    with transaction.atomic():
        if before is not None:
            _add(before, -1)
        if after is not None:
            _add(after, +1)


def on_attempt_deleted(sender: Any, instance: Attempt, **kwargs: Any) -> None:
    """``post_delete`` of an attempt (its player's account deleted): its count goes too.

    The one write not made by a service (Django's cascade); connected in GamesConfig.
    """
    key = board_key(instance)
    if key is not None:
        _add(key, -1)


def board_counts_rebuild(challenge_id: int | None = None) -> int:
    """Recount the boards (one, or all) from the attempts; returns the score rows written."""
    attempts = Attempt.objects.filter(BOARD_CONDITION, score__isnull=False)
    scores = BoardScoreCount.objects.all()
    groups = BoardProgressCount.objects.all()
    if challenge_id is not None:
        attempts = attempts.filter(challenge_id=challenge_id)
        scores = scores.filter(challenge_id=challenge_id)
        groups = groups.filter(challenge_id=challenge_id)
    rows = attempts.values(*KEY_COLUMNS).annotate(n=Count("id")).order_by()
    progress = attempts.values(*PROGRESS_COLUMNS).annotate(n=Count("id")).order_by()
    with transaction.atomic():
        scores.delete()
        groups.delete()
        BoardScoreCount.objects.bulk_create(
            BoardScoreCount(**{name: row[name] for name in KEY_COLUMNS}, attempts=row["n"])
            for row in rows
        )
        BoardProgressCount.objects.bulk_create(
            BoardProgressCount(**{name: row[name] for name in PROGRESS_COLUMNS}, attempts=row["n"])
            for row in progress
        )
    return len(rows)
