"""Celery tasks of the games app. Tasks take ids, call a service, and are safe to run twice."""

from celery import shared_task


@shared_task(name="games.ping")
def ping() -> str:
    """A no-op round trip through the broker and a worker: for health checks and tests."""
    return "pong"
