"""The games signals of a race's attempts, turned into room pushes (connected in
RoomsConfig.ready()). They arrive after the commit; a receiver never raises: an accepted
action must not fail because Redis (or the room's bookkeeping) did."""

from __future__ import annotations

import logging
from typing import Any

from core.live import broadcast
from games.models import Attempt
from rooms.models import Seat
from rooms.selectors import group_name, progress_of
from rooms.services import room_finish_if_over

log = logging.getLogger(__name__)


def _seat_of(attempt_id: int) -> dict[str, Any] | None:
    seat = (
        Seat.objects.filter(attempt_id=attempt_id)
        .values("room_id", "room__code", "player__username")
        .first()
    )
    return None if seat is None else dict(seat)


def push_progress(attempt: Attempt, seat: dict[str, Any]) -> None:
    payload = {
        "type": "progress",
        "code": seat["room__code"],
        "username": seat["player__username"],
        "progress": progress_of(attempt),
    }
    broadcast(group_name(seat["room__code"]), "room.progress", payload)


def on_attempt_played(sender: Any, attempt_id: int, attempt: Attempt, **kwargs: Any) -> None:
    try:
        seat = _seat_of(attempt_id)
        if seat is not None:
            push_progress(attempt, seat)
    except Exception:
        log.exception("room progress push of attempt %s failed", attempt_id)


def on_attempt_finished(
    sender: Any, attempt_id: int, attempt: Attempt | None = None, **kwargs: Any
) -> None:
    if attempt is None or not attempt.is_race:
        return
    try:
        seat = _seat_of(attempt_id)
        if seat is None:
            return
        push_progress(attempt, seat)
        room_finish_if_over(room_id=seat["room_id"])
    except Exception:
        log.exception("room update after attempt %s finished failed", attempt_id)
