"""A play cursor (games.services.attempts.PlayCursor, one per play socket): batches written
without the row lock by one conditional statement while nobody else plays, and the locked
path whenever that is not the whole story: someone else played, a refusal, a retry, a win,
the day over. Whatever the path, the stored log and the answers are those of the lock.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from games.errors import AttemptOverError, OffsetConflictError
from games.models import Attempt
from games.services.attempts import (
    DAY_OVER,
    PlayCursor,
    attempt_push_actions,
    attempt_start_ranked,
)
from tests.factories import make_player
from tests.games.api_support import past_challenge_of, solution_of, todays_challenge

pytestmark = pytest.mark.django_db


def started() -> tuple[Any, Attempt, list[str]]:
    challenge = todays_challenge()
    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    return player, attempt, solution_of(challenge.deal)


def push(player: Any, attempt: Attempt, offset: int, actions: list[str], cursor: Any = None) -> Any:
    return attempt_push_actions(
        attempt_id=attempt.pk, player=player, offset=offset, actions=actions, cursor=cursor
    )


def test_while_nobody_else_plays_a_batch_is_one_statement(
    django_assert_num_queries: Any,
) -> None:
    player, attempt, line = started()
    cursor = PlayCursor()
    push(player, attempt, 0, line[:1], cursor)  # the first one reads the row under its lock
    for offset in range(1, 4):
        with django_assert_num_queries(1):  # the conditional UPDATE, nothing else
            batch = push(player, attempt, offset, line[offset : offset + 1], cursor)
        assert batch.offset == offset + 1
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.log == line[:4] and stored.action_count == 4
    assert stored.action_times == sorted(stored.action_times)


def test_two_cursors_on_one_attempt_never_lose_or_double_an_action() -> None:
    """Two sockets (two tabs) of one player, playing in turn: each finds the other's
    batches, through the locked path, and the log is every accepted batch once, in order."""
    player, attempt, line = started()
    first, second = PlayCursor(), PlayCursor()
    push(player, attempt, 0, line[:2], first)
    push(player, attempt, 2, line[2:3], second)
    # the first cursor still holds 2 actions: its stale batch is refused as over HTTP
    with pytest.raises(OffsetConflictError) as conflict:
        push(player, attempt, 2, line[3:4], first)
    assert conflict.value.details == {"offset": 3}
    push(player, attempt, 3, line[3:5], first)
    push(player, attempt, 5, line[5:6], second)
    push(player, attempt, 6, line[6:7], first)
    assert Attempt.objects.get(pk=attempt.pk).log == line[:7]
    # an HTTP post (no cursor) in between is seen the same way
    push(player, attempt, 7, line[7:8])
    with pytest.raises(OffsetConflictError):
        push(player, attempt, 7, line[8:9], first)
    push(player, attempt, 8, line[8:9], first)
    assert Attempt.objects.get(pk=attempt.pk).log == line[:9]


def test_a_retry_through_a_cursor_is_answered_as_the_first_time() -> None:
    player, attempt, line = started()
    cursor = PlayCursor()
    push(player, attempt, 0, line[:1], cursor)
    first = push(player, attempt, 1, line[1:3], cursor)
    again = push(player, attempt, 1, line[1:3], cursor)
    assert again.retry and (again.offset, again.state, again.elapsed) == (
        first.offset,
        first.state,
        first.elapsed,
    )
    assert Attempt.objects.get(pk=attempt.pk).log == line[:3]


def test_the_day_over_closes_the_attempt_even_through_a_cursor() -> None:
    player, attempt, line = started()
    cursor = PlayCursor()
    push(player, attempt, 0, line[:2], cursor)
    assert attempt.challenge is not None
    past_challenge_of(attempt.challenge)
    assert cursor.attempt is not None and cursor.attempt.challenge is not None
    cursor.attempt.challenge.date = timezone.now().date() - dt.timedelta(days=1)
    with pytest.raises(AttemptOverError) as over:
        push(player, attempt, 2, line[2:3], cursor)
    assert str(over.value) == DAY_OVER
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.end_reason == Attempt.EndReason.DAY_CLOSED and stored.log == line[:2]


def test_an_attempt_ended_elsewhere_takes_no_write_through_a_stale_cursor() -> None:
    player, attempt, line = started()
    cursor = PlayCursor()
    push(player, attempt, 0, line[:2], cursor)
    Attempt.objects.filter(pk=attempt.pk).update(
        ended_at=timezone.now(), end_reason=Attempt.EndReason.RESIGNED
    )
    with pytest.raises(AttemptOverError):
        push(player, attempt, 2, line[2:3], cursor)
    assert Attempt.objects.get(pk=attempt.pk).log == line[:2]


def test_the_winning_batch_through_a_cursor_scores_the_game() -> None:
    player, attempt, line = started()
    cursor = PlayCursor()
    for offset in range(0, len(line), 5):
        batch = push(player, attempt, offset, line[offset : offset + 5], cursor)
    assert batch.won
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.won and stored.end_reason == Attempt.EndReason.WON
    assert stored.score is not None and stored.score > 0
    assert stored.log == line and cursor.attempt is None
