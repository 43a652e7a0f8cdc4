"""Where a practice game of a past daily would have ranked on that day's board.

Computed from the day's board as it stands, with the board's own ranking (won first, then
runs home, cards turned up, score, time, and the moment it ended: a practice game ends after
the day, so it comes after every counted attempt equal to it on the rest), and never written
to it.
"""

from __future__ import annotations

from typing import Any

from games.errors import AttemptNotOverError, NotFoundError
from games.models import Attempt
from leaderboards.selectors import challenge_ref, count_strictly_better, players_counts


def would_rank(attempt: Attempt) -> dict[str, Any]:
    """``rank`` of ``of`` (the day's board plus this game), or a null rank and why."""
    challenge = attempt.challenge
    if attempt.kind != Attempt.Kind.PRACTICE or challenge is None:
        raise NotFoundError("This attempt is not a practice game of a past daily.")
    if not attempt.is_over:
        raise AttemptNotOverError("This game is not over yet: its rank is known when it ends.")
    board_size = players_counts(challenge.pk)["finished"]
    body: dict[str, Any] = {
        "attempt_id": attempt.pk,
        "challenge": challenge_ref(challenge),
        "board_size": board_size,
        "rank": None,
        "of": board_size + 1,
        "message": "",
    }
    if attempt.action_count == 0:
        body["message"] = 'A game ended with no action is not ranked (the rules, "Scoring").'
        return body
    body["rank"] = count_strictly_better(challenge.pk, attempt) + 1
    body["message"] = f"This would have ranked #{body['rank']} of {body['of']} that day."
    return body
