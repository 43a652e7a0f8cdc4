"""Celery tasks of the rooms app: take ids (or nothing), call a service, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from rooms.services import rooms_tidy

TIDY_TASK = "rooms.rooms_tidy"


@shared_task(name=TIDY_TASK)
def rooms_tidy_task() -> str:
    """The beat's: close the rooms left empty, end the races past their time limit."""
    done = rooms_tidy()
    return f"closed {done['closed']} empty room(s), ended {done['ended']} race(s) at their limit"
