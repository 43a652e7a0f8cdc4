"""Keeps ``BoardScoreCount`` equal to the boards, in the transaction that changes them.

An attempt counts on its challenge's board while it is ranked, finished with at least one
action and not voided (the rows of the ``attempt_board_order`` index). Every ORM write of
an attempt passes here (``post_save`` / ``post_delete``, connected in
LeaderboardsConfig.ready()): the attempt's (challenge, won, score) as loaded is compared
with what was saved, and the counts move by one in the same transaction, as an atomic
upsert, so concurrent finishes never lose a count. Writes that bypass the model
(``QuerySet.update``, bulk loads, raw SQL) are not seen: the hot path's raw write
(games/services/attempt_rows.py) only writes open attempts, which count on no board, and
after a bulk load ``tally_rebuild`` recounts.
"""

from __future__ import annotations

from typing import Any, cast

from django.db import connection, transaction
from django.db.models import Count

from games.models import BOARD_CONDITION, Attempt
from leaderboards.models import BoardScoreCount

KEY_FIELDS = ("kind", "challenge_id", "voided", "ended_at", "action_count", "won", "score")
UNKNOWN = object()

BoardKey = tuple[int, bool, int]


def board_key(attempt: Attempt) -> BoardKey | None:
    """(challenge id, won, score) while the attempt counts on a board, else None.

    The same rows as ``games.models.BOARD_CONDITION``: ranked, ended, not voided, and ended
    with at least one action.
    """
    if (
        attempt.kind == Attempt.Kind.RANKED
        and attempt.challenge_id is not None
        and not attempt.voided
        and attempt.ended_at is not None
        and attempt.action_count > 0
        and attempt.score is not None
    ):
        return attempt.challenge_id, bool(attempt.won), attempt.score
    return None


def _loaded_key(attempt: Attempt) -> Any:
    if all(name in attempt.__dict__ for name in KEY_FIELDS):
        return board_key(attempt)
    return UNKNOWN  # loaded with some of them deferred


def remember_key(sender: Any, instance: Attempt, **kwargs: Any) -> None:
    """``post_init``: what the attempt counted as when it was loaded (or made)."""
    instance._board_key = _loaded_key(instance)  # type: ignore[attr-defined]


def _add(key: BoardKey, delta: int) -> None:
    quote = connection.ops.quote_name
    table = quote(BoardScoreCount._meta.db_table)
    attempts = quote("attempts")
    columns = ", ".join(quote(name) for name in ("challenge_id", "won", "score"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({columns}, {attempts}) "
            f"VALUES (%s, %s, %s, %s) ON CONFLICT ({columns}) "
            f"DO UPDATE SET {attempts} = {table}.{attempts} + EXCLUDED.{attempts}",
            [*key, delta],
        )


def on_saving(sender: Any, instance: Attempt, **kwargs: Any) -> None:
    """``pre_save``: an attempt loaded with some key field deferred reads it from its row."""
    if instance._state.adding or getattr(instance, "_board_key", UNKNOWN) is not UNKNOWN:
        return
    stored = Attempt.objects.filter(pk=instance.pk).only(*KEY_FIELDS).first()
    instance._board_key = board_key(stored) if stored is not None else None  # type: ignore[attr-defined]


def _remembered(instance: Attempt) -> BoardKey | None:
    key = getattr(instance, "_board_key", UNKNOWN)
    return board_key(instance) if key is UNKNOWN else cast("BoardKey | None", key)


def on_saved(sender: Any, instance: Attempt, created: bool, **kwargs: Any) -> None:
    """``post_save``: move the counts by what the save changed, in the save's transaction."""
    before = None if created else _remembered(instance)
    after = board_key(instance)
    if before != after:
        with transaction.atomic():
            if before is not None:
                _add(before, -1)
            if after is not None:
                _add(after, +1)
    instance._board_key = after  # type: ignore[attr-defined]


def on_deleted(sender: Any, instance: Attempt, **kwargs: Any) -> None:
    """``post_delete`` (a player's account deleted, say): its count goes too."""
    key = _remembered(instance)
    if key is not None:
        _add(key, -1)


def tally_rebuild(challenge_id: int | None = None) -> int:
    """Recount the boards (one, or all) from the attempts; returns the rows written.

    For after a bulk load or a write that bypassed the model. Takes the same rows as the
    board (``attempt_board_order``).
    """
    attempts = Attempt.objects.filter(BOARD_CONDITION, score__isnull=False)
    counts = BoardScoreCount.objects.all()
    if challenge_id is not None:
        attempts = attempts.filter(challenge_id=challenge_id)
        counts = counts.filter(challenge_id=challenge_id)
    rows = [
        BoardScoreCount(
            challenge_id=row["challenge_id"], won=row["won"], score=row["score"], attempts=row["n"]
        )
        for row in attempts.values("challenge_id", "won", "score")
        .annotate(n=Count("id"))
        .order_by()
    ]
    with transaction.atomic():
        counts.delete()
        BoardScoreCount.objects.bulk_create(rows)
    return len(rows)
