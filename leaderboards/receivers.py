"""The games signals, turned into live pushes (connected in LeaderboardsConfig.ready()).

The signals are sent after the commit, so whatever is pushed has been committed. A
receiver only hands the work to the broadcaster (leaderboards/live.py) and never raises:
an accepted action must not fail because Redis did.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from games.models import Attempt
from leaderboards.live import broadcaster

log = logging.getLogger(__name__)


@contextmanager
def _never_raises(what: str, *args: Any) -> Iterator[None]:
    """A push that fails is logged (``what % args``), never raised to the sender."""
    try:
        yield
    except Exception:  # pragma: no cover - the broadcaster already guards itself
        log.exception(what, *args)


def on_attempt_progressed(
    sender: Any,
    attempt_id: int,
    challenge_id: int | None = None,
    attempt: Attempt | None = None,
    **kwargs: Any,
) -> None:
    if challenge_id is None:
        return  # practice: no board
    with _never_raises("progress push of attempt %s failed", attempt_id):
        broadcaster.progressed(attempt_id, attempt)


def on_attempt_finished(
    sender: Any,
    attempt_id: int,
    challenge_id: int | None = None,
    attempt: Attempt | None = None,
    **kwargs: Any,
) -> None:
    if challenge_id is None:
        return
    with _never_raises("board push after attempt %s finished failed", attempt_id):
        broadcaster.progressed(attempt_id, attempt)  # it leaves the "playing" list at once
        broadcaster.board_changed(challenge_id)


def on_attempt_voided(
    sender: Any, attempt_id: int, challenge_id: int | None = None, **kwargs: Any
) -> None:
    if challenge_id is None:
        return
    with _never_raises("board push after attempt %s was voided failed", attempt_id):
        broadcaster.voided(challenge_id, attempt_id)


def on_day_closed(sender: Any, challenge_ids: list[int], **kwargs: Any) -> None:
    """The day's close: every page watching one of these challenges is told at once."""
    for challenge_id in challenge_ids:
        with _never_raises("day-closed push of challenge %s failed", challenge_id):
            broadcaster.day_closed(challenge_id)
