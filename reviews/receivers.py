"""Listeners: accounts' sign-ins (a sighting) and games' ended attempts (a review)."""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest

from reviews.services import reviews_after_attempt_end, reviews_after_day_closed
from reviews.sightings import sighting_record

log = logging.getLogger(__name__)


def on_account_signed_in(
    sender: Any, request: HttpRequest, user: Any, browser: bool, **kwargs: Any
) -> None:
    sighting_record(request, user, browser=browser)


def on_attempt_finished(
    sender: Any, attempt_id: int, challenge_id: int | None = None, **kwargs: Any
) -> None:
    """A ranked attempt ended (after its commit): file the reviews it calls for. A failure
    here is logged and never reaches the player's request."""
    if challenge_id is None:
        return
    try:
        reviews_after_attempt_end(attempt_id=attempt_id)
    except Exception:
        log.exception("reviewing attempt %s failed", attempt_id)


def on_day_closed(sender: Any, challenge_ids: list[int], **kwargs: Any) -> None:
    """The day's close ran for these challenges (after its commit, in the close job, after
    the watchers were told: leaderboards connects first): review their day-closed attempts,
    those the close ended and those their players' own requests closed at 00:00 (a review is
    filed or updated, never doubled)."""
    try:
        reviews_after_day_closed(challenge_ids=challenge_ids)
    except Exception:
        log.exception("reviewing the attempts closed with challenges %s failed", challenge_ids)
