"""The archive: a past daily played again as practice.

An archive attempt is a practice attempt (``kind="practice"``) that names its daily: it is
never on the day's board (``BOARD_CONDITION`` takes ranked attempts only), never counted in
``BoardScoreCount``, the streaks or the stats, and pushes nothing live. Only a day that is
over opens: its deal is public by then for everyone at once (docs/fair-play.md), so
playing it again shows nothing that is not already shown.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.utils import timezone

from games import engine
from games.errors import ChallengeNotOpenError, NotFoundError
from games.models import Attempt
from games.selectors import day_is_closed, visible_challenge

log = logging.getLogger(__name__)


def attempt_start_archive(
    *, player: Any, challenge_id: int, now: dt.datetime | None = None
) -> Attempt:
    """A new unranked attempt at a past daily's deal (any number of them).

    Today's and future challenges are refused exactly as an unknown id is ("not found"):
    the archive is no way to look at, or rehearse, a deal whose day is still open.
    """
    now = now or timezone.now()
    challenge = visible_challenge(challenge_id, now)
    if challenge is None or not day_is_closed(challenge.date, now):
        raise NotFoundError("No such challenge.")
    if not challenge.deal.is_playable:
        raise ChallengeNotOpenError("This challenge's deal has been withdrawn.")
    attempt = Attempt.objects.create(
        player=player,
        deal=challenge.deal,
        challenge=challenge,
        kind=Attempt.Kind.PRACTICE,
        started_at=now,
        deals_left=engine.get_variant(challenge.variant).stock_deals,
    )
    log.info("attempt %s: archive practice of challenge %s", attempt.pk, challenge.pk)
    return attempt
