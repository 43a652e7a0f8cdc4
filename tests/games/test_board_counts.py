"""The board's counts stay equal to the board through every write the services make
(finishes won or not, resignations with and without an action, voids, closes of the day,
accounts deleted), and every rank read from them agrees with the database's own RANK()."""

from __future__ import annotations

import datetime as dt
import random
import threading
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone

from games.models import Attempt, BoardProgressCount, BoardScoreCount, DailyChallenge
from games.services.attempt_rows import save_progress
from games.services.attempts import (
    attempt_push_actions,
    attempt_resign,
    attempt_start_ranked,
    attempt_void,
    attempts_close_day,
)
from games.services.board_counts import board_counts_rebuild
from leaderboards import selectors
from tests.factories import make_player
from tests.games.api_support import noon_of, playing, solution_of, todays_challenge
from tests.threads_at_once import run_in_threads

Key = tuple[bool, int, int, int]
Counts = tuple[dict[Key, int], dict[Key, int]]


def stored_counts(challenge_id: int) -> Counts:
    """(score counts, progress counts), each by (won, runs home, cards turned up, score or 0)."""
    scores = BoardScoreCount.objects.filter(challenge_id=challenge_id, attempts__gt=0)
    groups = BoardProgressCount.objects.filter(challenge_id=challenge_id, attempts__gt=0)
    return (
        {(r.won, r.runs_completed, r.cards_turned_up, r.score): r.attempts for r in scores},
        {(r.won, r.runs_completed, r.cards_turned_up, 0): r.attempts for r in groups},
    )


def recounted(challenge_id: int) -> Counts:
    scores: dict[Key, int] = {}
    groups: dict[Key, int] = {}
    for attempt in selectors.board_attempts(challenge_id):
        assert attempt.score is not None and attempt.action_count > 0
        group = (attempt.won, attempt.runs_completed, attempt.cards_turned_up)
        scores[(*group, attempt.score)] = scores.get((*group, attempt.score), 0) + 1
        groups[(*group, 0)] = groups.get((*group, 0), 0) + 1
    return scores, groups


def database_ranks(challenge_id: int) -> dict[int, int]:
    """Attempt id -> rank, by the database's own RANK() in docs/rules.md's order, over every
    ended, non-voided ranked attempt with an action: independent of the code under test."""
    table = connection.ops.quote_name(Attempt._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, RANK() OVER (ORDER BY won DESC, runs_completed DESC, "
            "cards_turned_up DESC, score DESC, elapsed_seconds ASC, "
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
def test_counts_follow_every_service_write() -> None:
    challenge = todays_challenge()
    solution = solution_of(challenge.deal)
    rng = random.Random(7)
    start = noon_of(challenge)
    attempts: list[Attempt] = []
    for n in range(30):
        player = make_player(f"p{n}")
        attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk, now=start)
        # Some win, some resign after a few actions, some with none (then on no board);
        # few distinct times, so that scores and times tie.
        played = rng.choice([0, 1, 3, 3, len(solution)])
        when = start + dt.timedelta(seconds=rng.choice([30, 60, 90]))
        if played:
            attempt_push_actions(
                attempt_id=attempt.pk, player=player, offset=0, actions=solution[:played], now=when
            )
        if played < len(solution):
            attempt_resign(attempt_id=attempt.pk, player=player, now=when)
        attempts.append(attempt)
        assert stored_counts(challenge.pk) == recounted(challenge.pk), n
    assert {key[0] for key in stored_counts(challenge.pk)[0]} == {True, False}
    assert_ranks_agree_with_the_board(challenge.pk)

    for step, attempt in enumerate(rng.sample(attempts, 12)):
        if step % 3 == 0:
            attempt.player.delete()  # the account goes, and its attempt with it
        else:
            attempt_void(attempt_id=attempt.pk, reason="test")
            attempt_void(attempt_id=attempt.pk, reason="twice changes nothing")
        assert stored_counts(challenge.pk) == recounted(challenge.pk), step
    assert_ranks_agree_with_the_board(challenge.pk)


@pytest.mark.django_db
def test_an_attempt_closed_with_its_day_is_counted() -> None:
    challenge = todays_challenge()
    _, attempt = playing(challenge, 2)
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )
    assert attempts_close_day() == [attempt.pk]
    assert stored_counts(challenge.pk) == recounted(challenge.pk) != ({}, {})


@pytest.mark.django_db
def test_the_hand_written_write_refuses_an_ended_attempt() -> None:
    player, attempt = playing(todays_challenge(), 2)
    ended = attempt_resign(attempt_id=attempt.pk, player=player)
    with pytest.raises(ValueError, match="has ended"):
        save_progress(ended)


@pytest.mark.django_db
def test_rebuild_repairs_counts_after_writes_that_bypass_the_services() -> None:
    challenge = todays_challenge()
    solution = solution_of(challenge.deal)
    for n in range(4):
        player = make_player(f"bulk{n}")
        attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
        attempt_push_actions(
            attempt_id=attempt.pk, player=player, offset=0, actions=solution[: n + 1]
        )
        attempt_resign(attempt_id=attempt.pk, player=player)
    Attempt.objects.filter(challenge=challenge, action_count=1).update(voided=True)  # unseen
    assert stored_counts(challenge.pk) != recounted(challenge.pk)
    board_counts_rebuild(challenge.pk)
    assert stored_counts(challenge.pk) == recounted(challenge.pk)
    assert_ranks_agree_with_the_board(challenge.pk)


@pytest.mark.django_db(transaction=True)
def test_simultaneous_finishes_with_one_score_are_all_counted() -> None:
    challenge = todays_challenge()
    first = solution_of(challenge.deal)[:1]
    start = noon_of(challenge)
    players = [make_player(f"racer{n}") for n in range(8)]
    for player in players:
        attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk, now=start)
        attempt_push_actions(
            attempt_id=attempt.pk, player=player, offset=0, actions=first, now=start
        )
    barrier = threading.Barrier(len(players))
    errors: list[BaseException] = []

    def resign_together(player: Any) -> None:
        try:
            attempt = Attempt.objects.get(player=player)
            barrier.wait(timeout=10)
            attempt_resign(attempt_id=attempt.pk, player=player, now=start)
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    run_in_threads(resign_together, [(p,) for p in players], timeout=30)
    assert not errors
    assert list(stored_counts(challenge.pk)[0].values()) == [8]
    assert list(stored_counts(challenge.pk)[1].values()) == [8]
