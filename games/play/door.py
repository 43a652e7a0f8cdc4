"""``play_actions``: a batch of actions counted, read, played and answered (see the package)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.db import DatabaseError, connection

from core.api_errors import DomainError
from core.throttles import take_user_request, user_counter
from games.play import answers
from games.play.answers import PlayAnswer
from games.play.batch_input import batch_input
from games.services.attempts import PlayCursor, attempt_push_actions

log = logging.getLogger(__name__)

# The rate limit of a played batch (DEFAULT_THROTTLE_RATES): the same counter as every
# view with ``throttle_scope = "actions"`` (a start counts in it too).
ACTIONS_SCOPE = "actions"


def seconds_to_wait(player: Any) -> float | None:
    """One batch of ``player`` (signed in) counted in the ``actions`` scope: None if it may
    go, else the seconds to wait (nothing counted then)."""
    counter = user_counter(ACTIONS_SCOPE, player.pk)
    if counter is None:
        return None
    return take_user_request(caches["default"], *counter, time.time())


def play_actions(
    *,
    attempt_id: int,
    player: Any,
    read_data: Callable[[], Any],
    cursor: PlayCursor,
    held_connection: bool = False,
) -> PlayAnswer:
    """The answer to a batch posted to the attempt by ``player``, who is signed in.

    ``read_data`` gives the batch's input (``offset`` and ``actions``); it is read only
    once the throttle lets the batch through. ``cursor`` is what the caller holds of the
    attempt since its last batch (``PlayCursor``), updated in place. With
    ``held_connection`` (a caller whose connection may have outlived its server session:
    the socket's threads keep theirs, a request takes a pooled one) a database error closes
    the connection and the batch is played once more on a fresh one (a batch stored before
    the error is then a retry, answered as the first); a second error is answered 503
    ``unavailable``. Without it a database error is raised: Django's request handling
    answers it (core/http_errors.py: 503 ``unavailable`` when the database cannot be
    reached, else 500).
    """
    wait = seconds_to_wait(player)
    if wait is not None:
        return answers.throttled(wait)
    batch_in = batch_input(read_data())
    if isinstance(batch_in, dict):
        return answers.invalid(batch_in)
    offset, actions = batch_in
    if not held_connection:
        return _played(attempt_id, player, offset, actions, cursor)
    try:
        return _played(attempt_id, player, offset, actions, cursor)
    except DatabaseError:
        # The held connection may have died (a PostgreSQL restart): once more on a fresh
        # one (a batch stored before the failure is a retry then, answered as the first).
        _drop_connection(cursor)
    try:
        return _played(attempt_id, player, offset, actions, cursor)
    except DatabaseError as error:
        _drop_connection(cursor)
        log.warning("attempt %s: database unavailable: %r", attempt_id, error)
        return answers.unavailable()


def _played(
    attempt_id: int, player: Any, offset: int, actions: list[str], cursor: PlayCursor
) -> PlayAnswer:
    try:
        batch = attempt_push_actions(
            attempt_id=attempt_id, player=player, offset=offset, actions=actions, cursor=cursor
        )
    except DomainError as error:
        return answers.refused(error)
    return answers.accepted(batch)


def _drop_connection(cursor: PlayCursor) -> None:
    connection.close()
    cursor.clear()
