"""One batch of actions checked, applied and answered exactly as ``POST
attempts/<id>/actions/`` answers it: the step the play socket and the action posts
answered on the event loop's side (config/direct_action_posts.py) share.

The order is the endpoint's: the ``actions`` rate limit, the input, then the one service of
both transports (``attempt_push_actions``). The answer is the HTTP status and body the
endpoint gives: 200 and the batch, 400 invalid / invalid_action / illegal_action, 404,
409 offset_conflict / attempt_over, 429 throttled, and 503 unavailable when the database
cannot be reached twice running (send the same batch again: a batch stored before the
failure is a retry then, answered as the first time).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, connection
from rest_framework.exceptions import Throttled

from core.api_errors import DomainError, error_body
from games.api.attempts import AttemptActionsApi, fast_batch
from games.api.rendering import render
from games.services.attempts import PlayCursor, attempt_push_actions

log = logging.getLogger(__name__)


def invalid_body(details: Any) -> dict[str, Any]:
    return error_body("invalid", "The request is not valid.", details)


def throttled_body(wait: float) -> dict[str, Any]:
    # (the wait in whole seconds, rounded up, as DRF's Throttled answers it)
    return error_body("throttled", str(Throttled(wait).detail), {"wait": math.ceil(wait)})


def batch_answer(
    *,
    attempt_id: int,
    user: Any,
    data: dict[str, Any],
    cursor: PlayCursor,
    throttle: Callable[[], float | None],
) -> tuple[int, Any]:
    """``data`` (``offset`` and ``actions``) played on the attempt for ``user``, who is
    signed in: the endpoint's status and body. ``throttle`` counts the request (None: it
    may go, else the seconds to wait); ``cursor`` is what the caller holds of the attempt
    since its last batch, updated in place."""
    wait = throttle()
    if wait is not None:
        return 429, throttled_body(wait)
    batch_in = fast_batch(data)
    if batch_in is None:
        serializer = AttemptActionsApi.InputSerializer(data=data)
        if not serializer.is_valid():
            return 400, invalid_body(serializer.errors)
        batch_in = serializer.validated_data["offset"], serializer.validated_data["actions"]
    offset, actions = batch_in
    for tries_left in (1, 0):
        try:
            batch = attempt_push_actions(
                attempt_id=attempt_id, player=user, offset=offset, actions=actions, cursor=cursor
            )
            break
        except DomainError as error:
            return error.http_status, error_body(error.code, error.message, error.details)
        except DatabaseError as error:
            # The thread's held connection may have died (a PostgreSQL restart): once more
            # on a fresh one from the pool, which checks it.
            connection.close()
            cursor.clear()
            if tries_left:
                continue
            log.warning("attempt %s: database unavailable: %r", attempt_id, error)
            body = error_body(
                "unavailable", "The database cannot be reached: send the same batch again."
            )
            return 503, body
    return 200, render(AttemptActionsApi.OutputSerializer, batch)
