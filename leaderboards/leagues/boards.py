"""A league's daily board: the day's ranking (leaderboards/selectors.py) over its members.

One query ranks the board attempts of one challenge whose player is in the league: the
members from the membership's unique index (league, player), each one's attempt by one
probe of the ranked-attempt index (player, challenge); ``RANK()`` over those rows is the
rank within the league. The names of the rows kept are read afterwards by primary key
(joined in, the planner preferred hashing every user to probing 500).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Window
from django.db.models.functions import Rank

from games.models import Attempt
from leaderboards import selectors
from leaderboards.models import LeagueMember
from leaderboards.selectors import BOARD_ORDER, BoardRow

ATTEMPT_VALUES = (
    "id",
    "player_id",
    "score",
    "elapsed_seconds",
    "action_count",
    "won",
    "runs_completed",
    "ended_at",
)
RANKED_VALUES = (*ATTEMPT_VALUES, "league_rank", "league_size")


@dataclass
class LeagueDayBoard:
    rows: list[BoardRow] = field(default_factory=list)  # ranked within the league
    finished: int = 0  # members on the day's board
    playing: int = 0  # members with an open ranked attempt

    def counts(self) -> dict[str, int]:
        return {"playing": self.playing, "finished": self.finished}

    def row_of(self, username: str | None) -> BoardRow | None:
        return next((row for row in self.rows if row.username == username), None)


def _members(league_id: int) -> QuerySet[LeagueMember, Any]:
    return LeagueMember.objects.filter(league_id=league_id).values("player_id")


def _username() -> Subquery:
    user_model = get_user_model()
    names = user_model.objects.filter(pk=OuterRef("player_id")).values(user_model.USERNAME_FIELD)
    return Subquery(names)


def _usernames(player_ids: list[int]) -> dict[int, str]:
    """Names of the rows kept (the top), read after the ranking so that the ranking does not
    look up every member's name."""
    user_model = get_user_model()
    names = user_model.objects.filter(pk__in=player_ids).values_list(
        "pk", user_model.USERNAME_FIELD
    )
    return dict(names)


def _row(values: dict[str, Any]) -> BoardRow:
    ended_at: dt.datetime = values["ended_at"]
    return BoardRow(
        rank=values["league_rank"],
        username=values["username"],
        score=values["score"],
        elapsed_seconds=values["elapsed_seconds"],
        action_count=values["action_count"],
        won=values["won"],
        runs_completed=values["runs_completed"],
        ended_at=ended_at,
        attempt_id=values["id"],
    )


def _ranked(challenge_id: int, league_id: int) -> QuerySet[Attempt]:
    return (
        selectors.board_attempts(challenge_id)
        .filter(player_id__in=_members(league_id))
        .annotate(
            league_rank=Window(Rank(), order_by=list(BOARD_ORDER)),
            league_size=Window(Count("id")),
        )
    )


def league_day_board(challenge_id: int, league_id: int, top: int | None = None) -> LeagueDayBoard:
    """The league's board of the challenge (its first ``top`` ranks, or all of it: at most
    one row a member) and its counts, in three queries. The ranks and the count of finished
    members are windows over the whole league's rows, computed before ``top`` cuts them."""
    ranked = _ranked(challenge_id, league_id)
    if top is not None:
        ranked = ranked.filter(**{"league_rank__lte": top})  # a window: filtered after it
    board = LeagueDayBoard()
    found = list(ranked.order_by(*BOARD_ORDER, "id").values(*RANKED_VALUES)[:top])
    names = _usernames([values["player_id"] for values in found])
    for values in found:
        board.finished = values["league_size"]
        board.rows.append(_row({**values, "username": names.get(values["player_id"], "")}))
    board.playing = (
        selectors.playing_attempts(challenge_id).filter(player_id__in=_members(league_id)).count()
    )
    return board


def _strictly_better(attempt: dict[str, Any]) -> Q:
    """RULES.md's order: won first, then score, elapsed time, end (as ``BOARD_ORDER``)."""
    same = Q(won=attempt["won"])
    better = same & Q(score__gt=attempt["score"])
    same &= Q(score=attempt["score"])
    better |= same & Q(elapsed_seconds__lt=attempt["elapsed_seconds"])
    same &= Q(elapsed_seconds=attempt["elapsed_seconds"])
    better |= same & Q(ended_at__lt=attempt["ended_at"])
    return better | Q(won=True) if not attempt["won"] else better


def league_rank_of(challenge_id: int, league_id: int, player_id: int) -> BoardRow | None:
    """The player's row ranked within the league, wherever it is (None if not on the
    board, or not a member): their attempt, and a count of the members' better ones."""
    members = _members(league_id)
    found = (
        selectors.board_attempts(challenge_id)
        .filter(player_id=player_id, player_id__in=members)
        .annotate(username=_username())
        .values(*ATTEMPT_VALUES, "username")
        .first()
    )
    if found is None:
        return None
    better = (
        selectors.board_attempts(challenge_id)
        .filter(_strictly_better(found), player_id__in=members)
        .count()
    )
    return _row({**found, "league_rank": better + 1})


def league_day_boards(
    challenge_id: int, league_ids: Iterable[int], top: int | None = None
) -> dict[int, LeagueDayBoard]:
    """The boards of several leagues (a push window's watched leagues), each read once."""
    return {
        league_id: league_day_board(challenge_id, league_id, top)
        for league_id in sorted(set(league_ids))
    }


def league_progress(challenge_id: int, league_id: int, limit: int) -> list[dict[str, Any]]:
    """The members playing now (the most recently active first): no log, no card."""
    attempts: QuerySet[Attempt] = (
        selectors.playing_attempts(challenge_id)
        .filter(player_id__in=_members(league_id))
        .select_related("player")
        .order_by(F("last_action_at").desc(nulls_last=True), "id")[:limit]
    )
    return [selectors.progress_row(attempt) for attempt in attempts]
