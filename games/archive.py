"""Reads for the archive of past dailies: a calendar month of one variant.

Only days that are over appear (``day_is_closed``): today's and future dailies stay out of
the archive as they stay out of every public list.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import QuerySet, Sum
from django.utils import timezone

from games.models import DailyChallenge, Deal
from games.selectors import utc_today


def month_bounds(month: dt.date) -> tuple[dt.date, dt.date]:
    """The first day of ``month``'s month and the first day of the next one."""
    first = month.replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return first, following


def _past_dailies(variant: str, today: dt.date) -> QuerySet[DailyChallenge]:
    """The variant's dailies whose day is over and whose deal may still be played."""
    return DailyChallenge.objects.filter(
        variant=variant,
        date__lt=today,
        deal__status=Deal.Status.VERIFIED,
        deal__retired=False,
    )


def _month_text(day: dt.date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def archive_month(variant: str, month: dt.date, now: dt.datetime | None = None) -> dict[str, Any]:
    """The past dailies of ``variant`` in ``month``'s month, oldest first, with the size of
    each day's board; and the nearest months before and after that have some."""
    today = utc_today(now or timezone.now())
    first, following = month_bounds(month)
    past = _past_dailies(variant, today)
    days = (
        past.filter(date__gte=first, date__lt=following)
        .select_related("deal")
        .annotate(finished=Sum("score_counts__attempts"))
        .order_by("date")
    )
    before = past.filter(date__lt=first).order_by("-date").values_list("date", flat=True).first()
    after = past.filter(date__gte=following).order_by("date").values_list("date", flat=True).first()
    return {
        "variant": variant,
        "month": _month_text(first),
        "previous": _month_text(before) if before else None,
        "next": _month_text(after) if after else None,
        "days": [
            {
                "challenge_id": daily.pk,
                "date": daily.date,
                "difficulty": daily.deal.difficulty_label or None,
                "par": daily.deal.par,
                "finished": int(daily.finished or 0),
            }
            for daily in days
        ],
    }


def latest_archive_month(variant: str, now: dt.datetime | None = None) -> dt.date:
    """The month of the variant's latest past daily (yesterday's month when it has none)."""
    today = utc_today(now or timezone.now())
    latest = _past_dailies(variant, today).order_by("-date").values_list("date", flat=True).first()
    return latest or today - dt.timedelta(days=1)
