"""The ratings follow a void: whoever voids an attempt (the attempt admin, a review's void),
a day already rated is rated again without it (connected in LeaderboardsConfig.ready())."""

from __future__ import annotations

import logging
from typing import Any

from leaderboards.ratings.services import ratings_after_void

log = logging.getLogger(__name__)


def on_attempt_voided_rate_again(
    sender: Any, attempt_id: int, challenge_id: int | None = None, **kwargs: Any
) -> None:
    if challenge_id is None:
        return  # practice: never rated
    try:
        ratings_after_void(challenge_id=challenge_id)
    except Exception:  # the void stands; `manage.py ratings_recompute` puts the ratings right
        log.exception("ratings not rated again after attempt %s was voided", attempt_id)
