"""Reads for a player's page beyond the stats and streaks of ``selectors``: the calendar of
the days played, the recent replays anyone may open, and the best ranks.

Fair play (docs/fair-play.md): the calendar says only what the day's public board already
says (played, won, score); a replay is listed only once its day is over, when anyone may
open it; ranks come from rated days, which are closed days.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import QuerySet

from games.models import BOARD_CONDITION, Attempt
from games.selectors import utc_today
from leaderboards.ratings.selectors import rating_history

CALENDAR_DAYS = 371  # 53 weeks: a year's grid, whole weeks
RECENT_REPLAYS = 10
BEST_RANKS = 5


def _counted(player: Any, variant: str | None) -> QuerySet[Attempt]:
    attempts = Attempt.objects.filter(BOARD_CONDITION, player=player)
    return attempts.filter(challenge__variant=variant) if variant else attempts


def days_played(
    player: Any, variant: str | None = None, today: dt.date | None = None
) -> list[dict[str, Any]]:
    """The ranked dailies the player finished in the last ``CALENDAR_DAYS`` days (today
    included, oldest first): date, variant, won, score."""
    today = today or utc_today()
    rows = (
        _counted(player, variant)
        .filter(challenge__date__gt=today - dt.timedelta(days=CALENDAR_DAYS))
        .order_by("challenge__date", "challenge__variant")
        .values("challenge__date", "challenge__variant", "won", "score")
    )
    return [
        {
            "date": row["challenge__date"],
            "variant": row["challenge__variant"],
            "won": row["won"],
            "score": row["score"],
        }
        for row in rows
    ]


def recent_replays(
    player: Any, variant: str | None = None, today: dt.date | None = None
) -> list[dict[str, Any]]:
    """The player's newest counted ranked games of days that are over: anyone may replay
    them (``games.selectors.attempt_is_public``)."""
    today = today or utc_today()
    rows = (
        _counted(player, variant)
        .filter(challenge__date__lt=today)
        .order_by("-challenge__date", "challenge__variant")
        .values(
            "pk",
            "challenge_id",
            "challenge__date",
            "challenge__variant",
            "won",
            "score",
            "elapsed_seconds",
        )[:RECENT_REPLAYS]
    )
    return [
        {
            "attempt_id": row["pk"],
            "challenge_id": row["challenge_id"],
            "date": row["challenge__date"],
            "variant": row["challenge__variant"],
            "won": row["won"],
            "score": row["score"],
            "elapsed_seconds": row["elapsed_seconds"],
        }
        for row in rows
    ]


def best_ranks(player: Any, variants: list[str]) -> list[dict[str, Any]]:
    """The player's ``BEST_RANKS`` best places on rated (closed) days: lowest rank first,
    then the larger field, then the newer day."""
    places = [
        {
            "date": day["date"],
            "variant": variant,
            "challenge_id": day["challenge_id"],
            "rank": day["rank"],
            "players": day["players"],
        }
        for variant in variants
        for day in rating_history(player, variant)
    ]
    places.sort(key=lambda place: (place["rank"], -place["players"], -place["date"].toordinal()))
    return places[:BEST_RANKS]
