"""What a league's watchers are sent: its board of the day, computed once per push window
for every watcher of the league (one channel-layer group per (challenge, league)), for
each watched league of the challenge (leaderboards/leagues/watched.py) in the day board's
flush (leaderboards/live.py)."""

from __future__ import annotations

from typing import Any

from games.selectors import visible_challenge
from leaderboards import selectors
from leaderboards.leagues.boards import (
    league_day_board,
    league_day_boards,
    league_progress,
)
from leaderboards.leagues.watched import watched_leagues
from leaderboards.models import League

LEAGUE_LIVE_TOP = 50
LEAGUE_LIVE_PLAYING = 100


def league_group_name(challenge_id: int, league_id: int) -> str:
    return f"challenge_{challenge_id}_league_{league_id}"


def league_board_payloads(challenge_id: int) -> list[tuple[str, dict[str, Any]]]:
    """(group, ``board`` message) of every league of the challenge that has watchers."""
    boards = league_day_boards(challenge_id, watched_leagues(challenge_id), top=LEAGUE_LIVE_TOP)
    return [
        (
            league_group_name(challenge_id, league_id),
            {
                "type": "board",
                "challenge_id": challenge_id,
                "league_id": league_id,
                "top": [row.as_json() for row in board.rows],
                "counts": board.counts(),
                "voided": None,
            },
        )
        for league_id, board in boards.items()
    ]


def league_snapshot_payload(
    challenge_id: int, league_id: int, player_id: int | None
) -> dict[str, Any] | None:
    """What a league watcher gets on connect; None when the challenge or league is not
    there (the consumer checks membership before)."""
    challenge = visible_challenge(challenge_id)
    league = League.objects.filter(pk=league_id).first()
    if challenge is None or league is None:
        return None
    board = league_day_board(challenge_id, league_id, top=LEAGUE_LIVE_TOP, player_id=player_id)
    me = board.me
    return {
        "type": "snapshot",
        "challenge": {**selectors.challenge_ref(challenge), "date": challenge.date.isoformat()},
        "league": {"id": league.pk, "name": league.name},
        "top": [row.as_json() for row in board.rows[:LEAGUE_LIVE_TOP]],
        "counts": board.counts(),
        "playing": league_progress(challenge_id, league_id, LEAGUE_LIVE_PLAYING),
        "me": me.as_json() if me else None,
    }
