"""The board's score counts stay equal to the board through every kind of write, and the
ranks and sizes read from them agree with the board itself."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import connection, connections, transaction

from games.models import Attempt
from leaderboards import selectors
from leaderboards.models import BoardScoreCount
from leaderboards.tally import tally_rebuild
from tests.leaderboards.conftest import (
    BASE,
    finish,
    make_attempt,
    make_challenge,
    make_user,
    void,
)


def stored_counts(challenge_id: int) -> dict[tuple[bool, int], int]:
    rows = BoardScoreCount.objects.filter(challenge_id=challenge_id, attempts__gt=0)
    return {(row.won, row.score): row.attempts for row in rows}


def recounted(challenge_id: int) -> dict[tuple[bool, int], int]:
    counts: dict[tuple[bool, int], int] = {}
    for attempt in selectors.board_attempts(challenge_id):
        assert attempt.score is not None and attempt.action_count > 0
        key = (attempt.won, attempt.score)
        counts[key] = counts.get(key, 0) + 1
    return counts


def database_ranks(challenge_id: int) -> dict[int, int]:
    """Attempt id -> rank, by PostgreSQL's (or SQLite's) own RANK() in RULES.md's order,
    over every ended, non-voided ranked attempt with an action: independent of the code."""
    table = connection.ops.quote_name(Attempt._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, RANK() OVER (ORDER BY won DESC, score DESC, elapsed_seconds ASC, "
            f"ended_at ASC) FROM {table} WHERE challenge_id = %s AND kind = 'ranked' "
            "AND NOT voided AND ended_at IS NOT NULL AND action_count > 0",
            [challenge_id],
        )
        return {int(attempt_id): int(rank) for attempt_id, rank in cursor.fetchall()}


def assert_ranks_agree_with_the_board(challenge_id: int) -> None:
    board = selectors.leaderboard_for_day(challenge_id, limit=1000)
    expected = database_ranks(challenge_id)
    assert selectors.players_counts(challenge_id)["finished"] == len(board) == len(expected)
    assert {row.attempt_id: row.rank for row in board} == expected
    for row in board:
        player_id = Attempt.objects.get(pk=row.attempt_id).player_id
        own = selectors.player_rank(challenge_id, player_id)
        assert own is not None and own.rank == row.rank, row


@pytest.mark.django_db
def test_counts_follow_finishes_voids_rescoring_and_deletions() -> None:
    challenge = make_challenge()
    other = make_challenge(variant="spider1")
    rng = random.Random(7)
    attempts = [
        make_attempt(challenge, make_user(f"p{n}"), score=None, ended_at=None) for n in range(40)
    ]
    make_attempt(other, make_user("elsewhere"), score=300)  # another board: not counted here
    make_attempt(challenge, make_user("practising"), score=900, kind=Attempt.Kind.PRACTICE)
    for step in range(120):
        attempt = rng.choice(attempts)
        attempt.refresh_from_db()
        if attempt.ended_at is None:
            # Some win, some resign, some leave with no action (then on no board).
            attempt.action_count = rng.choice([0, 1, 40])
            finish(
                attempt,
                score=rng.choice([0, 50, 120, 120, 300, 500]),
                elapsed=rng.choice([30, 60, 90]),
                won=rng.random() < 0.4,
            )
        elif not attempt.voided and step % 3 == 0:
            void(attempt)
        elif not attempt.voided:
            attempt.score = rng.choice([10, 120, 400])  # an admin's correction, say
            attempt.won = rng.random() < 0.5
            attempt.save()
        if step % 10 == 0:
            attempt.player.delete()  # the account goes, and its attempt with it
            attempts.remove(attempt)
        assert stored_counts(challenge.pk) == recounted(challenge.pk), step
        if step % 20 == 0:
            assert_ranks_agree_with_the_board(challenge.pk)
    assert stored_counts(other.pk) == {(False, 300): 1}
    assert_ranks_agree_with_the_board(challenge.pk)


@pytest.mark.django_db
def test_an_attempt_loaded_with_deferred_fields_still_moves_the_counts() -> None:
    challenge = make_challenge()
    attempt = make_attempt(challenge, make_user("deferred"), score=200)
    partial = Attempt.objects.only("id", "void_reason").get(pk=attempt.pk)
    partial.voided = True
    partial.save()
    assert stored_counts(challenge.pk) == {}


@pytest.mark.django_db
def test_rebuild_repairs_counts_after_writes_that_bypass_the_model() -> None:
    challenge = make_challenge()
    for n in range(5):
        make_attempt(challenge, make_user(f"bulk{n}"), score=100 + n)
    Attempt.objects.filter(challenge=challenge, score=100).update(voided=True)  # unseen
    assert stored_counts(challenge.pk) != recounted(challenge.pk)
    tally_rebuild(challenge.pk)
    assert stored_counts(challenge.pk) == recounted(challenge.pk)
    assert_ranks_agree_with_the_board(challenge.pk)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_simultaneous_finishes_with_one_score_are_all_counted() -> None:
    challenge = make_challenge()
    attempts = [
        make_attempt(challenge, make_user(f"racer{n}"), score=None, ended_at=None) for n in range(8)
    ]
    barrier = threading.Barrier(len(attempts))
    errors: list[BaseException] = []

    def finish_together(attempt: Attempt) -> None:
        try:
            with transaction.atomic():
                barrier.wait(timeout=10)
                attempt.ended_at = BASE
                attempt.score = 250
                attempt.elapsed_seconds = 60.0
                attempt.save()
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish_together, args=(a,)) for a in attempts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert stored_counts(challenge.pk) == {(False, 250): 8}
    assert connection.vendor == "postgresql"
