"""Celery tasks of the leaderboards app: take ids (or nothing), call a service, safe twice."""

from __future__ import annotations

from celery import shared_task

from leaderboards.ratings.services import ratings_rate_closed_days

RATE_CLOSED_DAYS_TASK = "leaderboards.ratings_rate_closed_days"


@shared_task(name=RATE_CLOSED_DAYS_TASK)
def ratings_rate_closed_days_task() -> str:
    """The beat's, after ``games.attempts_close_day``: rate every closed daily not rated yet
    (each variant's in date order; a day with ranked attempts still open waits for the next
    run). The embedded beat runs this body in-process, after the day's close."""
    rated = ratings_rate_closed_days()
    return f"rated {len(rated)} closed day(s)"
