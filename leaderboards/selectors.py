"""Reads for the leaderboards: PostgreSQL is the source of truth, every rank an indexed query.

Order (docs/rules.md, "How boards rank"): won attempts above all others; then progress, that is
complete foundations (runs home) more first and cards turned up more first; then score higher
first, elapsed seconds shorter first, and the moment the attempt ended earlier first. A won
game has every run home and every card turned up, so one order serves both groups. The daily
board counts the finished, non-voided ranked attempts of one challenge that hold at least
one action (one started and left is not ranked); the partial index ``attempt_board_order``
(challenge, -won, -runs_completed, -cards_turned_up, -score, elapsed_seconds, ended_at) holds
exactly those rows in that order.

Ranks are SQL ``RANK()``: attempts equal in every key share a rank and the next rank
skips (1, 2, 2, 4). ``ended_at`` has microsecond resolution, so a shared rank is rare; within
one, rows are listed by attempt id. A player's rank is "attempts strictly better + 1", which
is the same number, counted on the index without reading the rows below.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Avg, Count, F, Max, Q, QuerySet, Sum, Window
from django.db.models.functions import Rank
from django.utils import timezone

from games import engine, ranking
from games.models import (
    BOARD_CONDITION,
    Attempt,
    BoardProgressCount,
    BoardScoreCount,
    DailyChallenge,
)
from leaderboards.models import LeagueMember

MAX_LIMIT = 200
# Score buckets of the results histogram: [0, 100), [100, 200), … and one for 700 and above.
SCORE_BUCKET = 100
SCORE_BUCKETS = 8


@dataclass(frozen=True)
class BoardRow:
    rank: int
    username: str
    score: int
    elapsed_seconds: float
    action_count: int
    won: bool
    runs_completed: int
    cards_turned_up: int
    ended_at: dt.datetime
    attempt_id: int

    def as_json(self) -> dict[str, Any]:
        """The public row: what a watcher or an API client sees (no log, no cards)."""
        row = asdict(self)
        row["ended_at"] = self.ended_at.isoformat()
        return row


def board_attempts(challenge_id: int) -> QuerySet[Attempt]:
    """The attempts that count on a challenge's board: the rows of ``attempt_board_order``."""
    return Attempt.objects.filter(BOARD_CONDITION, challenge_id=challenge_id)


BOARD_ORDER = ranking.BOARD_ORDER
# What a board row shows of an attempt: its log and server times (long JSON arrays) stay unread.
ROW_COLUMNS = (
    "score",
    "elapsed_seconds",
    "action_count",
    "won",
    "runs_completed",
    "cards_turned_up",
    "ended_at",
)
ROW_FIELDS = (*ROW_COLUMNS, "player__username")


def board_row(attempt: Attempt, rank: int) -> BoardRow:
    assert attempt.score is not None and attempt.elapsed_seconds is not None
    assert attempt.ended_at is not None
    return BoardRow(
        rank=rank,
        username=attempt.player.get_username(),
        score=attempt.score,
        elapsed_seconds=attempt.elapsed_seconds,
        action_count=attempt.action_count,
        won=attempt.won,
        runs_completed=attempt.runs_completed,
        cards_turned_up=attempt.cards_turned_up,
        ended_at=attempt.ended_at,
        attempt_id=attempt.pk,
    )


def challenge_ref(challenge: DailyChallenge) -> dict[str, Any]:
    """A board's challenge as its answers name it: with ``face_down_dealt``, the deal's face-down
    tableau cards, what a row's ``cards_turned_up`` counts against."""
    return {
        "id": challenge.pk,
        "date": challenge.date,
        "variant": challenge.variant,
        "face_down_dealt": engine.face_down_dealt(engine.get_variant(challenge.variant)),
    }


def _challenge_id(challenge: DailyChallenge | int) -> int:
    return challenge if isinstance(challenge, int) else challenge.pk


def leaderboard_for_day(
    challenge: DailyChallenge | int, limit: int = 50, offset: int = 0
) -> list[BoardRow]:
    """Rows ``offset`` to ``offset + limit`` of the board, ranked (a streamed index scan)."""
    limit = max(0, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    attempts = (
        board_attempts(_challenge_id(challenge))
        .select_related("player")
        .only(*ROW_FIELDS)
        .annotate(board_rank=Window(Rank(), order_by=list(BOARD_ORDER)))
        .order_by(*BOARD_ORDER, "id")[offset : offset + limit]
    )
    return [board_row(attempt, attempt.board_rank) for attempt in attempts]


def count_strictly_better(challenge_id: int, attempt: Attempt) -> int:
    """How many board attempts rank before ``attempt``.

    A better outcome or more progress: a sum over the board's progress counts
    (``BoardProgressCount``, one row per distinct outcome and progress: at most 514); the
    same and a higher score: a sum over its score counts (``BoardScoreCount``) within that
    one group. Not a count over the index entries above the player. Ties on all of it: one
    range of ``attempt_board_order`` read from the index alone, a shorter time, or the same
    time and an earlier end.
    """
    group = {
        "won": attempt.won,
        "runs_completed": attempt.runs_completed,
        "cards_turned_up": attempt.cards_turned_up,
    }
    board = board_attempts(challenge_id).filter(**group, score=attempt.score)
    better_groups = BoardProgressCount.objects.filter(
        better_progress(attempt), challenge_id=challenge_id
    )
    higher_scores = BoardScoreCount.objects.filter(
        challenge_id=challenge_id, **group, score__gt=attempt.score
    )
    faster = Q(elapsed_seconds__lt=attempt.elapsed_seconds) | Q(
        elapsed_seconds=attempt.elapsed_seconds, ended_at__lt=attempt.ended_at
    )
    return _sum_counts(better_groups) + _sum_counts(higher_scores) + board.filter(faster).count()


def better_progress(attempt: Attempt) -> Q:
    """The rows (of the board, or of its counts) whose outcome or progress ranks before
    ``attempt``'s, whatever their score and time."""
    won, runs, turned = attempt.won, attempt.runs_completed, attempt.cards_turned_up
    better = Q(won=won, runs_completed__gt=runs) | Q(
        won=won, runs_completed=runs, cards_turned_up__gt=turned
    )
    if not won:
        better |= Q(won=True)
    return better


def _sum_counts(counts: QuerySet[BoardScoreCount] | QuerySet[BoardProgressCount]) -> int:
    return int(counts.aggregate(total=Sum("attempts"))["total"] or 0)


def player_rank(challenge: DailyChallenge | int, player: Any) -> BoardRow | None:
    """The player's row with its rank, wherever it is; None if not (or not yet) on the board."""
    challenge_id = _challenge_id(challenge)
    player_id = player if isinstance(player, int) else getattr(player, "pk", None)
    if player_id is None:
        return None
    attempt = board_attempts(challenge_id).filter(player_id=player_id).select_related("player")
    found = attempt.only(*ROW_FIELDS).first()
    if found is None:
        return None
    return board_row(found, count_strictly_better(challenge_id, found) + 1)


def players_counts(challenge: DailyChallenge | int) -> dict[str, int]:
    """How many players are playing (open ranked attempts, not voided) and how many are on
    the board."""
    challenge_id = _challenge_id(challenge)
    playing = playing_attempts(challenge_id).count()
    finished = _sum_counts(BoardProgressCount.objects.filter(challenge_id=challenge_id))
    return {"playing": playing, "finished": finished}


def playing_attempts(challenge_id: int) -> QuerySet[Attempt]:
    """Open ranked attempts; a voided one has left the live panels as it left the board."""
    return Attempt.objects.filter(
        challenge_id=challenge_id, kind=Attempt.Kind.RANKED, ended_at__isnull=True, voided=False
    )


def live_progress(challenge: DailyChallenge | int, limit: int = 100) -> list[dict[str, Any]]:
    """Everyone playing now (the most recently active first): no log, no card."""
    attempts = (
        playing_attempts(_challenge_id(challenge))
        .select_related("player")
        .order_by(F("last_action_at").desc(nulls_last=True), "id")[:limit]
    )
    return [progress_row(attempt) for attempt in attempts]


def progress_row(attempt: Attempt) -> dict[str, Any]:
    """One player's live progress: the counts a watcher may see, never a card."""
    return {
        "attempt_id": attempt.pk,
        "username": attempt.player.get_username(),
        "runs_completed": attempt.runs_completed,
        "cards_turned_up": attempt.cards_turned_up,
        "action_count": attempt.action_count,
        "deals_left": attempt.deals_left,
        "finished": attempt.ended_at is not None,
    }


def attempt_progress(attempt_id: int) -> tuple[int | None, dict[str, Any]] | None:
    """(challenge id, progress row) of one ranked attempt, None if it is not on a board (a
    practice or a voided attempt)."""
    attempt = Attempt.objects.filter(pk=attempt_id).select_related("player").first()
    return progress_of(attempt) if attempt is not None else None


def progress_of(attempt: Attempt) -> tuple[int | None, dict[str, Any]] | None:
    """``attempt_progress`` of an attempt in hand (its player loaded): no query."""
    if attempt.kind != Attempt.Kind.RANKED or attempt.voided:
        return None
    return attempt.challenge_id, progress_row(attempt)


# --- players: streaks and stats ------------------------------------------------


def _ended_dailies(player: Any, variant: str | None) -> QuerySet[Attempt]:
    """The player's ended, non-voided ranked attempts (with or without an action)."""
    attempts = Attempt.objects.filter(
        player=player, kind=Attempt.Kind.RANKED, voided=False, ended_at__isnull=False
    )
    if variant:
        attempts = attempts.filter(challenge__variant=variant)
    return attempts


def _counted_dailies(player: Any, variant: str | None) -> QuerySet[Attempt]:
    """The player's ranked attempts on the boards (docs/rules.md: one ended with no action is not
    ranked, so it is not in the stats either)."""
    return _ended_dailies(player, variant).filter(BOARD_CONDITION)


def streaks(player: Any, variant: str, today: dt.date | None = None) -> dict[str, Any]:
    """Consecutive UTC days on which the player won the ranked daily of ``variant``.

    ``current`` is the run that reaches today, or yesterday while today's daily is still
    unplayed (not lost yet); a day without a win (lost, voided, not played) ends a run.
    """
    today = today or timezone.now().date()
    won_days = sorted(
        set(
            _counted_dailies(player, variant)
            .filter(won=True)
            .values_list("challenge__date", flat=True)
        )
    )
    best = run = 0
    previous: dt.date | None = None
    for day in won_days:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = 0
    if previous is not None and previous >= today - dt.timedelta(days=1):
        current = run
        if previous < today:
            # Yesterday ended the run; it stays current unless today's daily was already lost.
            # (an attempt left with no action is unranked, but today can no longer be won)
            lost_today = (
                _ended_dailies(player, variant).filter(challenge__date=today, won=False).exists()
            )
            current = 0 if lost_today else run
    return {
        "variant": variant,
        "current": current,
        "best": best,
        "last_won": previous,
    }


def player_stats(player: Any, variant: str | None = None) -> dict[str, Any]:
    """Played, won, win rate, best and average score and two histograms, over ranked dailies."""
    attempts = _counted_dailies(player, variant)
    totals = attempts.aggregate(
        played=Count("id"),
        won=Count("id", filter=Q(won=True)),
        best_score=Max("score"),
        average_score=Avg("score"),
    )
    buckets = {
        f"b{n}": Count(
            "id",
            filter=(
                Q(score__gte=n * SCORE_BUCKET, score__lt=(n + 1) * SCORE_BUCKET)
                if n < SCORE_BUCKETS - 1
                else Q(score__gte=n * SCORE_BUCKET)
            ),
        )
        for n in range(SCORE_BUCKETS)
    }
    counts = attempts.aggregate(**buckets)
    score_histogram = [
        {
            "start": n * SCORE_BUCKET,
            "end": (n + 1) * SCORE_BUCKET - 1 if n < SCORE_BUCKETS - 1 else None,
            "count": counts[f"b{n}"],
        }
        for n in range(SCORE_BUCKETS)
    ]
    runs = attempts.values("runs_completed").annotate(count=Count("id")).order_by("runs_completed")
    played = totals["played"]
    average = totals["average_score"]
    return {
        "variant": variant,
        "played": played,
        "won": totals["won"],
        "win_rate": round(totals["won"] / played, 4) if played else None,
        "best_score": totals["best_score"],
        "average_score": round(float(average), 2) if average is not None else None,
        "score_histogram": score_histogram,
        "runs_histogram": [
            {"runs_completed": row["runs_completed"], "count": row["count"]} for row in runs
        ],
    }


# --- the all-time board ----------------------------------------------------------

# docs/rules.md: a day counts the player's score if they won it, else nothing; ties by the number
# of days won (more first), then the total elapsed time of those wins (shorter first). With
# dailies in several variants, a day counts the player's best win of that day.
_ALLTIME_SQL = """
WITH wins AS (
    SELECT a.player_id, a.score, a.elapsed_seconds, ROW_NUMBER() OVER (
        PARTITION BY a.player_id, c.date ORDER BY a.score DESC, a.elapsed_seconds ASC
    ) AS nth
    FROM {attempt} a JOIN {challenge} c ON c.id = a.challenge_id
    WHERE a.kind = %s AND a.won AND NOT a.voided AND a.ended_at IS NOT NULL
      AND c.date >= %s AND c.date <= %s{league_clause}
), totals AS (
    SELECT player_id, SUM(score) AS total, COUNT(*) AS days, SUM(elapsed_seconds) AS seconds
    FROM wins WHERE nth = 1 GROUP BY player_id
)
SELECT RANK() OVER (ORDER BY t.total DESC, t.days DESC, t.seconds ASC) AS rank,
       u.{username}, t.total, t.days, t.seconds
FROM totals t JOIN {user} u ON u.id = t.player_id
ORDER BY t.total DESC, t.days DESC, t.seconds ASC, u.{username} ASC
LIMIT %s
"""


_LEAGUE_CLAUSE = """
      AND a.player_id IN (SELECT m.player_id FROM {member} m WHERE m.league_id = %s)"""


def alltime_board(
    days: int = 30,
    limit: int = 50,
    today: dt.date | None = None,
    league_id: int | None = None,
) -> list[dict[str, Any]]:
    """Each player's won dailies over the last ``days`` (today and the ``days - 1`` before):
    the sum of each day's best winning score (any variant), ranked as docs/rules.md says. Equal
    in total, days won and time share a rank. With ``league_id``: its members only.
    """
    today = today or timezone.now().date()
    first = today - dt.timedelta(days=max(1, days) - 1)
    user_model = get_user_model()
    sql = _ALLTIME_SQL.format(
        attempt=connection.ops.quote_name(Attempt._meta.db_table),
        challenge=connection.ops.quote_name(DailyChallenge._meta.db_table),
        user=connection.ops.quote_name(user_model._meta.db_table),
        username=connection.ops.quote_name(user_model.USERNAME_FIELD),
        league_clause=_LEAGUE_CLAUSE.format(
            member=connection.ops.quote_name(LeagueMember._meta.db_table)
        )
        if league_id is not None
        else "",
    )
    params: list[Any] = [Attempt.Kind.RANKED.value, first, today]
    if league_id is not None:
        params.append(league_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, max(0, min(limit, MAX_LIMIT))])
        rows = cursor.fetchall()
    return [
        {
            "rank": int(rank),
            "username": username,
            "total_score": int(total),
            "days": int(days_),
            "total_seconds": round(float(seconds), 3),
        }
        for rank, username, total, days_, seconds in rows
    ]


STREAK_WINDOW_DAYS = 366


def streak_board(
    variant: str, limit: int = 50, today: dt.date | None = None, league_id: int | None = None
) -> list[dict[str, Any]]:
    """Players by their current streak of won dailies of ``variant`` (as :func:`streaks`);
    with ``league_id``, its members only.

    Only a player who won today's or yesterday's daily can have a current streak, so the
    board reads the wins of those players alone, over the last STREAK_WINDOW_DAYS days (a
    longer streak is shown as that many days). Equal streaks share a rank.
    """
    today = today or timezone.now().date()
    yesterday = today - dt.timedelta(days=1)
    wins = Attempt.objects.filter(
        kind=Attempt.Kind.RANKED,
        voided=False,
        won=True,
        ended_at__isnull=False,
        challenge__variant=variant,
    )
    if league_id is not None:
        wins = wins.filter(player__league_memberships__league_id=league_id)
    candidates = set(
        wins.filter(challenge__date__gte=yesterday).values_list("player_id", flat=True)
    )
    lost_today = set(
        Attempt.objects.filter(
            kind=Attempt.Kind.RANKED,
            voided=False,
            won=False,
            ended_at__isnull=False,
            challenge__variant=variant,
            challenge__date=today,
            player_id__in=candidates,
        ).values_list("player_id", flat=True)
    )
    days_won: dict[int, set[dt.date]] = {}
    names: dict[int, str] = {}
    rows = wins.filter(
        player_id__in=candidates - lost_today,
        challenge__date__gt=today - dt.timedelta(days=STREAK_WINDOW_DAYS),
    ).values_list("player_id", "player__username", "challenge__date")
    for player_id, username, date in rows:
        days_won.setdefault(player_id, set()).add(date)
        names[player_id] = username
    board: list[dict[str, Any]] = []
    for player_id, days in days_won.items():
        day = today if today in days else yesterday
        current = 0
        while day in days:
            current += 1
            day -= dt.timedelta(days=1)
        board.append({"username": names[player_id], "current": current, "last_won": max(days)})
    board.sort(key=lambda row: (-int(row["current"]), str(row["username"])))
    rank = 0
    for position, row in enumerate(board, start=1):
        if position == 1 or row["current"] != board[position - 2]["current"]:
            rank = position
        row["rank"] = rank
    return board[:limit]
