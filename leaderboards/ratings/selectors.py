"""Reads of the ratings: the rating board, a player's ratings and their history.

Only closed, rated days are in these tables (a day is rated after its day is over:
leaderboards/ratings/services.py), so nothing here says anything about an open day.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F

from leaderboards.ratings.math import shown_rating
from leaderboards.ratings.models import (
    BOARD_MIN_RATED_DAYS,
    PlayerRating,
    RatedDay,
    RatingChange,
)

MAX_LIMIT = 200


def rating_board(variant: str, limit: int = 50) -> list[dict[str, Any]]:
    """The players of ``variant`` with at least BOARD_MIN_RATED_DAYS rated days, best shown
    rating first (then by username); equal ratings share a rank and the next rank skips, as
    SQL ``RANK()`` (1, 2, 2, 4). An index scan of ``rating_board_order`` stopped by the limit:
    the board always starts at its top, so each rank is counted from the rows read."""
    limit = max(0, min(limit, MAX_LIMIT))
    ratings = (
        PlayerRating.objects.filter(variant=variant, rated_days__gte=BOARD_MIN_RATED_DAYS)
        .order_by(F("rating").desc(), "player__username")
        .values_list("player__username", "rating", "mu", "sigma", "rated_days")[:limit]
    )
    rows: list[dict[str, Any]] = []
    for position, (username, rating, mu, sigma, rated_days) in enumerate(ratings, start=1):
        tied = rows and rows[-1]["rating"] == rating
        rows.append(
            {
                "rank": rows[-1]["rank"] if tied else position,
                "username": username,
                "rating": rating,
                "mu": mu,
                "sigma": sigma,
                "rated_days": rated_days,
            }
        )
    return rows


def _change_row(change: RatingChange) -> dict[str, Any]:
    return {
        "date": change.challenge.date,
        "challenge_id": change.challenge_id,
        "rank": change.rank,
        "players": change.players,
        "rating_before": shown_rating(change.mu_before, change.sigma_before),
        "rating": shown_rating(change.mu_after, change.sigma_after),
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu": change.mu_after,
        "sigma": change.sigma_after,
    }


def _changes(player: Any) -> Any:
    return RatingChange.objects.filter(player=player).select_related("challenge")


def player_ratings(player: Any) -> list[dict[str, Any]]:
    """The player's rating in each variant they have been rated in (variant order): rating
    (shown: mu - 3 sigma), mu, sigma, rated_days and ``last_change`` (the latest rated day's
    row, as in :func:`rating_history`, or None)."""
    ratings = list(PlayerRating.objects.filter(player=player).order_by("variant"))
    last_ids = [r.last_challenge_id for r in ratings if r.last_challenge_id is not None]
    last = {c.challenge_id: c for c in _changes(player).filter(challenge_id__in=last_ids)}
    rows = []
    for r in ratings:
        change = last.get(r.last_challenge_id) if r.last_challenge_id is not None else None
        rows.append(
            {
                "variant": r.variant,
                "rating": r.rating,
                "mu": r.mu,
                "sigma": r.sigma,
                "rated_days": r.rated_days,
                "last_change": _change_row(change) if change is not None else None,
            }
        )
    return rows


def rating_history(player: Any, variant: str) -> list[dict[str, Any]]:
    """Each rated day of ``variant`` the player was on the board of, in date order: date,
    challenge_id, rank, players, rating_before, rating (after), mu_before, sigma_before, mu,
    sigma (after)."""
    changes = _changes(player).filter(challenge__variant=variant).order_by("challenge__date")
    return [_change_row(change) for change in changes]


def rating_of(player: Any, variant: str) -> dict[str, Any] | None:
    """The player's current rating in ``variant`` (rating, mu, sigma, rated_days), or None."""
    found = PlayerRating.objects.filter(player=player, variant=variant).first()
    if found is None:
        return None
    return {
        "rating": found.rating,
        "mu": found.mu,
        "sigma": found.sigma,
        "rated_days": found.rated_days,
    }


def day_rated(challenge_id: int) -> bool:
    return RatedDay.objects.filter(challenge_id=challenge_id).exists()


def rating_change(player: Any, challenge_id: int) -> dict[str, Any] | None:
    """What the rated day ``challenge_id`` did to the player's rating; None while that day is
    not rated (it is rated only once closed) or if they were not on its board."""
    change = _changes(player).filter(challenge_id=challenge_id).first()
    return _change_row(change) if change is not None else None
