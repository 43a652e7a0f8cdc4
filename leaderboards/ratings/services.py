"""Writes of the ratings: rate a closed daily (once), rate every closed day due, recompute.

A closed daily is one match among the players on its board, in the board's order (ranks of
``RANK()``: ties share one). Each player's rating in the variant goes in, the Plackett-Luce
update (leaderboards/ratings/math.py) comes out; the day's changes, the new ratings and the
``RatedDay`` row are written in one transaction.

- **Only closed days**: a day is rated once ``games.selectors.day_is_closed`` says its day is
  over and no ranked attempt of it is still open (the day-close job ends those first), never
  before: nothing about an open day reaches the ratings.
- **In date order**: a variant's day is rated only once every earlier daily of that variant
  has been; the job rates the unrated closed days of each variant oldest first.
- **Once**: the ``RatedDay`` row (unique challenge) is written first, in the transaction; a
  second run of the same day, at once or later, finds it (or waits on its insert and then
  fails it) and rates nothing.
- **Recomputable**: ``ratings_recompute`` deletes a variant's ratings and rates its days again
  with the same code in the same order, so it gives the same numbers (not if an attempt
  was voided after its day was rated: the recomputed board no longer has it).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from django.db import IntegrityError, transaction
from django.db.models import Window
from django.db.models.functions import Rank
from django.utils import timezone

from games.models import Attempt, DailyChallenge
from games.selectors import day_is_closed
from leaderboards.ratings.math import Skill, new_skill, rate_match, shown_rating
from leaderboards.ratings.models import PlayerRating, RatedDay, RatingChange
from leaderboards.ratings.writes import write_day
from leaderboards.selectors import BOARD_ORDER, board_attempts

log = logging.getLogger(__name__)

Outcome = Literal["rated", "already_rated", "day_open", "attempts_open", "earlier_unrated"]


@dataclass
class Timings:
    """Where one day's rating went (seconds): for the benchmark."""

    read: float = 0.0
    math: float = 0.0
    write: float = 0.0
    steps: list[str] = field(default_factory=list)


def _open_ranked_attempts(challenge_id: int) -> bool:
    return Attempt.objects.filter(
        challenge_id=challenge_id, kind=Attempt.Kind.RANKED, ended_at__isnull=True, voided=False
    ).exists()


def _earlier_unrated(challenge: DailyChallenge) -> bool:
    return (
        DailyChallenge.objects.filter(variant=challenge.variant, date__lt=challenge.date)
        .filter(rated_day__isnull=True)
        .exists()
    )


def ratings_rate_day(
    *, challenge_id: int, now: dt.datetime | None = None, timings: Timings | None = None
) -> Outcome:
    """Rate one closed daily, if it is due: its day is over, none of its ranked attempts is
    still open, every earlier daily of its variant is rated, and it is not rated yet. Safe to
    run twice and at the same time (one of them rates, the others find it rated)."""
    challenge = DailyChallenge.objects.get(pk=challenge_id)
    if not day_is_closed(challenge.date, now):
        return "day_open"
    if RatedDay.objects.filter(challenge_id=challenge_id).exists():
        return "already_rated"
    if _open_ranked_attempts(challenge_id):
        return "attempts_open"
    if _earlier_unrated(challenge):
        return "earlier_unrated"
    with transaction.atomic():
        try:
            with transaction.atomic():
                # First: a concurrent run of this day waits here, then fails on the unique row.
                rated = RatedDay.objects.create(
                    challenge=challenge,
                    variant=challenge.variant,
                    date=challenge.date,
                    players=0,
                    rated_at=now or timezone.now(),
                )
        except IntegrityError:
            return "already_rated"
        rated.players = _rate(challenge, timings or Timings())
        rated.save(update_fields=["players"])
    log.info("rated %s: %s players", challenge, rated.players)
    return "rated"


def _rate(challenge: DailyChallenge, timings: Timings) -> int:
    """The match of one day: read its board and the players' ratings, update, write."""
    started = time.perf_counter()
    board = board_attempts(challenge.pk)
    ranked = list(
        board.annotate(board_rank=Window(Rank(), order_by=list(BOARD_ORDER)))
        .order_by(*BOARD_ORDER, "id")
        .values_list("player_id", "board_rank")
    )
    current = {
        player_id: (mu, sigma, rated_days)
        for player_id, mu, sigma, rated_days in PlayerRating.objects.filter(
            variant=challenge.variant, player_id__in=board.values("player_id")
        ).values_list("player_id", "mu", "sigma", "rated_days")
    }
    read_done = time.perf_counter()
    timings.read += read_done - started
    if len(ranked) < 2:
        return len(ranked)  # no match: one player alone (or none) moves no rating
    default = new_skill()
    before = [
        Skill(*current[player_id][:2]) if player_id in current else default
        for player_id, _ in ranked
    ]
    after = rate_match(before, [int(rank) for _, rank in ranked])
    math_done = time.perf_counter()
    timings.math += math_done - read_done
    players = len(ranked)
    variant, challenge_id, date = challenge.variant, challenge.pk, challenge.date
    changes = [
        (challenge_id, player_id, int(rank), players, old.mu, old.sigma, new.mu, new.sigma)
        for (player_id, rank), old, new in zip(ranked, before, after, strict=True)
    ]
    ratings = [
        (
            player_id,
            variant,
            new.mu,
            new.sigma,
            shown_rating(new.mu, new.sigma),
            (current[player_id][2] if player_id in current else 0) + 1,
            challenge_id,
            date,
        )
        for (player_id, _), new in zip(ranked, after, strict=True)
    ]
    write_day(changes, ratings)
    timings.write += time.perf_counter() - math_done
    return players


def _unrated_closed_days(variant: str, now: dt.datetime | None) -> list[int]:
    days = DailyChallenge.objects.filter(variant=variant, rated_day__isnull=True).order_by("date")
    return [c.pk for c in days.only("pk", "date") if day_is_closed(c.date, now)]


def ratings_rate_closed_days(*, now: dt.datetime | None = None) -> list[int]:
    """The day-close job's second half: rate every unrated closed daily, each variant's in
    date order, stopping at a variant's first day that is not due yet (ranked attempts still
    open). Returns the challenges rated."""
    rated = []
    variants = DailyChallenge.objects.values_list("variant", flat=True).distinct()
    for variant in sorted(set(variants)):
        for challenge_id in _unrated_closed_days(variant, now):
            outcome = ratings_rate_day(challenge_id=challenge_id, now=now)
            if outcome == "rated":
                rated.append(challenge_id)
            elif outcome != "already_rated":
                break
    return rated


def ratings_after_void(*, challenge_id: int) -> int:
    """An attempt of this daily was voided: when the day is already rated, its variant's
    ratings are computed again without it (a day not rated yet is rated later without it:
    nothing to do). Returns the days rated again."""
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None or not RatedDay.objects.filter(challenge=challenge).exists():
        return 0
    days = ratings_recompute(variant=challenge.variant)
    log.info(
        "ratings of %s rated again after a void on challenge %s", challenge.variant, challenge_id
    )
    return days


def ratings_recompute(
    *, variant: str, now: dt.datetime | None = None, progress: Callable[[str], None] | None = None
) -> int:
    """Delete every rating of ``variant`` and rate its closed days again from the stored
    boards, in date order, in one transaction (the same code as the job: the same numbers).
    Stops at the first day that is not due (ranked attempts still open), as the job does.
    Returns the days rated."""
    with transaction.atomic():
        RatingChange.objects.filter(challenge__variant=variant).delete()
        RatedDay.objects.filter(variant=variant).delete()
        PlayerRating.objects.filter(variant=variant).delete()
        days = 0
        for challenge_id in _unrated_closed_days(variant, now):
            outcome = ratings_rate_day(challenge_id=challenge_id, now=now)
            if outcome != "rated":
                break
            days += 1
            if progress is not None:
                progress(f"{variant}: rated challenge {challenge_id}")
    return days
