"""A league's daily board: the day's ranking (leaderboards/selectors.py) over its members.

One query ranks the board attempts of one challenge whose player is in the league: the
membership's unique index (league, player) gives the members, and each member's attempt is
one probe of the ranked-attempt index (player, challenge). ``RANK()`` runs per league, so
the live flush ranks every watched league of a challenge in the same single query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, Window
from django.db.models.functions import Rank

from leaderboards import selectors
from leaderboards.selectors import BOARD_ORDER, ROW_FIELDS, BoardRow

MEMBER_LEAGUE = "player__league_memberships__league_id"


@dataclass
class LeagueDayBoard:
    rows: list[BoardRow] = field(default_factory=list)  # ranked within the league
    finished: int = 0  # members on the day's board
    playing: int = 0  # members with an open ranked attempt

    def counts(self) -> dict[str, int]:
        return {"playing": self.playing, "finished": self.finished}

    def row_of(self, username: str | None) -> BoardRow | None:
        return next((row for row in self.rows if row.username == username), None)


def league_day_boards(
    challenge_id: int, league_ids: Iterable[int], top: int | None = None
) -> dict[int, LeagueDayBoard]:
    """Each league's board of the challenge (its first ``top`` ranks, or all of it) and
    counts: two queries whatever the number of leagues."""
    ids = sorted(set(league_ids))
    boards = {league_id: LeagueDayBoard() for league_id in ids}
    if not ids:
        return boards
    league = F(MEMBER_LEAGUE)
    ranked = (
        selectors.board_attempts(challenge_id)
        .filter(**{f"{MEMBER_LEAGUE}__in": ids})
        .select_related("player")
        .only(*ROW_FIELDS)
        .annotate(
            board_league=league,
            league_rank=Window(Rank(), partition_by=[league], order_by=list(BOARD_ORDER)),
            league_size=Window(Count("id"), partition_by=[league]),
        )
    )
    if top is not None:
        ranked = ranked.filter(league_rank__lte=top)
    for attempt in ranked.order_by("board_league", *BOARD_ORDER, "id"):
        board = boards[attempt.board_league]
        board.finished = attempt.league_size
        if top is None or len(board.rows) < top:
            board.rows.append(selectors.board_row(attempt, attempt.league_rank))
    playing = (
        selectors.playing_attempts(challenge_id)
        .filter(**{f"{MEMBER_LEAGUE}__in": ids})
        .values(MEMBER_LEAGUE)
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in playing:
        boards[row[MEMBER_LEAGUE]].playing = row["count"]
    return boards


def league_day_board(challenge_id: int, league_id: int) -> LeagueDayBoard:
    """The whole board of one league (at most its members' count of rows)."""
    return league_day_boards(challenge_id, [league_id])[league_id]


def league_progress(challenge_id: int, league_id: int, limit: int) -> list[dict[str, Any]]:
    """The members playing now (the most recently active first): no log, no card."""
    attempts = (
        selectors.playing_attempts(challenge_id)
        .filter(**{MEMBER_LEAGUE: league_id})
        .select_related("player")
        .order_by(F("last_action_at").desc(nulls_last=True), "id")[:limit]
    )
    return [selectors.progress_row(attempt) for attempt in attempts]
