"""Celery tasks of the reminders: take nothing, call a service, safe to run twice (the
once-a-day row makes a second run send nothing new)."""

from __future__ import annotations

from celery import shared_task

from notifications.sending import send_reminders

SEND_TASK = "notifications.send_reminders"


@shared_task(name=SEND_TASK)
def send_reminders_task() -> str:
    """The beat's, every REMINDERS_EVERY seconds: the reminders due now."""
    done = send_reminders()
    sent = sum(counts.get("sent", 0) for counts in done.values())
    return f"sent {sent} reminder(s): {done}"
