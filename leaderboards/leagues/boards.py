"""A league's daily board: the day's ranking (leaderboards/selectors.py) over its members.

One query ranks the board attempts of one challenge whose player is in the league: the
members from the membership's unique index (league, player), each one's attempt by one
probe of the ranked-attempt index (player, challenge); ``RANK()`` over those rows is the
rank within the league. The rows kept (a page, the asker's) are then read whole with their
names by primary key (names joined into the ranking, the planner preferred hashing every
user to probing 500).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank

from games.models import Attempt
from leaderboards import selectors
from leaderboards.models import LeagueMember
from leaderboards.selectors import BOARD_ORDER, BoardRow

RANK_COLUMNS = ("id", "player_id", "league_rank")
ROW_VALUES = ("id", *selectors.ROW_COLUMNS)


@dataclass
class LeagueDayBoard:
    rows: list[BoardRow] = field(default_factory=list)  # ranked within the league
    me: BoardRow | None = None  # the row asked for, wherever it is
    finished: int = 0  # members on the day's board
    playing: int = 0  # members with an open ranked attempt

    def counts(self) -> dict[str, int]:
        return {"playing": self.playing, "finished": self.finished}


def _members(league_id: int) -> QuerySet[LeagueMember, Any]:
    return LeagueMember.objects.filter(league_id=league_id).values("player_id")


def _ranked(challenge_id: int, league_id: int) -> QuerySet[Attempt]:
    return (
        selectors.board_attempts(challenge_id)
        .filter(player_id__in=_members(league_id))
        .annotate(
            league_rank=Window(Rank(), order_by=list(BOARD_ORDER)),
        )
    )


def league_day_board(
    challenge_id: int, league_id: int, top: int | None = None, player_id: int | None = None
) -> LeagueDayBoard:
    """The league's board of the challenge: its first ``top`` ranks (or all of it: at most
    one row a member), and the row of ``player_id`` wherever it is (``me``), with the
    counts. The ranking reads every row of the league as three integers (id, player,
    rank: cheaper than counting apart the attempts better than the player's); the rows
    kept are then read whole, with their names, by primary key."""
    ranked = _ranked(challenge_id, league_id).order_by(*BOARD_ORDER, "id")
    found: list[tuple[int, int, int]] = list(ranked.values_list(*RANK_COLUMNS))
    cut = len(found) if top is None else top
    kept = found[:cut]
    mine = next((entry for entry in found if entry[1] == player_id), None)
    if mine is not None and mine not in kept:
        kept.append(mine)
    rows = _rows(kept)
    board = LeagueDayBoard(rows=rows[:cut], finished=len(found))
    board.me = next((row for row in rows if mine and row.attempt_id == mine[0]), None)
    board.playing = (
        selectors.playing_attempts(challenge_id).filter(player_id__in=_members(league_id)).count()
    )
    return board


def _rows(ranked: list[tuple[int, int, int]]) -> list[BoardRow]:
    """The board rows of ``(attempt id, player id, rank)``, in that order."""
    user_model = get_user_model()
    username = f"player__{user_model.USERNAME_FIELD}"
    details = {
        values["id"]: values
        for values in Attempt.objects.filter(pk__in=[entry[0] for entry in ranked]).values(
            *ROW_VALUES, username
        )
    }
    return [
        BoardRow(
            rank=rank,
            username=details[attempt_id][username],
            score=details[attempt_id]["score"],
            elapsed_seconds=details[attempt_id]["elapsed_seconds"],
            action_count=details[attempt_id]["action_count"],
            won=details[attempt_id]["won"],
            runs_completed=details[attempt_id]["runs_completed"],
            cards_turned_up=details[attempt_id]["cards_turned_up"],
            ended_at=details[attempt_id]["ended_at"],
            attempt_id=attempt_id,
        )
        for attempt_id, _, rank in ranked
        if attempt_id in details  # (its player deleted between the two reads)
    ]


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
