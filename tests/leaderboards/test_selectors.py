"""Ranks, own rank, counts, streaks, stats and the all-time board, read from the database."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from games.models import Attempt
from leaderboards import selectors
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import BASE, make_attempt

pytestmark = pytest.mark.django_db

T = dt.timedelta


def test_board_orders_by_outcome_then_score_then_elapsed_then_end() -> None:
    challenge = make_challenge()
    make_attempt(challenge, make_player("slow"), score=300, elapsed=90)
    make_attempt(challenge, make_player("late"), score=300, elapsed=60, ended_at=BASE + T(1))
    make_attempt(challenge, make_player("early"), score=300, elapsed=60, ended_at=BASE)
    make_attempt(challenge, make_player("best"), score=400, elapsed=500)
    make_attempt(challenge, make_player("worst"), score=0, elapsed=5)

    rows = selectors.leaderboard_for_day(challenge)

    assert [(r.rank, r.username) for r in rows] == [
        (1, "best"),
        (2, "early"),
        (3, "late"),
        (4, "slow"),
        (5, "worst"),
    ]
    assert rows[0].score == 400 and rows[0].elapsed_seconds == 500


def test_won_attempts_rank_above_all_others_and_an_attempt_without_an_action_is_not_ranked() -> (
    None
):
    challenge = make_challenge()
    make_attempt(challenge, make_player("quitter"), score=500, elapsed=0, actions=0)
    make_attempt(challenge, make_player("resigner"), score=499, elapsed=2, actions=1)
    make_attempt(challenge, make_player("slow_winner"), score=450, elapsed=1200, won=True)
    make_attempt(challenge, make_player("fast_winner"), score=800, elapsed=300, won=True)
    quitter_stats = selectors.player_stats(_user("quitter"))

    rows = selectors.leaderboard_for_day(challenge)

    assert [(r.rank, r.username) for r in rows] == [
        (1, "fast_winner"),
        (2, "slow_winner"),
        (3, "resigner"),
    ]
    assert _rank(challenge, "slow_winner") == 2 and _rank(challenge, "resigner") == 3
    assert _rank(challenge, "quitter") is None
    assert selectors.players_counts(challenge) == {"playing": 0, "finished": 3}
    assert (quitter_stats["played"], quitter_stats["best_score"]) == (0, None)
    assert sum(bucket["count"] for bucket in quitter_stats["score_histogram"]) == 0


def test_a_game_not_won_ranks_by_runs_home_then_cards_turned_up_before_its_score() -> None:
    """docs/rules.md, "How boards rank": giving up early never ranks above playing further."""
    challenge = make_challenge()
    # dora dealt once and resigned at 0:03: the best score of those not won.
    make_attempt(challenge, make_player("dora"), score=498, elapsed=3, actions=1, turned=0)
    make_attempt(challenge, make_player("cleo"), score=480, elapsed=20, actions=6, turned=3)
    make_attempt(challenge, make_player("nova"), score=360, elapsed=190, actions=47, turned=21)
    make_attempt(challenge, make_player("runner"), score=300, actions=120, runs=1, turned=9)
    make_attempt(challenge, make_player("twin"), score=400, actions=47, turned=21)
    make_attempt(challenge, make_player("winner"), score=700, won=True, runs=8, turned=56)

    rows = selectors.leaderboard_for_day(challenge)

    assert [(r.rank, r.username) for r in rows] == [
        (1, "winner"),
        (2, "runner"),  # a run home outranks any number of cards turned up
        (3, "twin"),  # equal progress: the higher score first
        (4, "nova"),
        (5, "cleo"),
        (6, "dora"),
    ]
    assert [(r.runs_completed, r.cards_turned_up) for r in rows][1:4] == [(1, 9), (0, 21), (0, 21)]
    # Each player's own rank, counted apart from the board's read, says the same.
    for row in rows:
        assert _rank(challenge, row.username) == row.rank


def test_attempts_equal_in_all_keys_share_a_rank() -> None:
    challenge = make_challenge()
    make_attempt(challenge, make_player("a"), score=300)
    make_attempt(challenge, make_player("b"), score=200)
    make_attempt(challenge, make_player("c"), score=200)
    make_attempt(challenge, make_player("d"), score=100)

    rows = selectors.leaderboard_for_day(challenge)

    assert [(r.rank, r.username) for r in rows] == [(1, "a"), (2, "b"), (2, "c"), (4, "d")]
    assert _rank(challenge, "c") == 2
    assert _rank(challenge, "d") == 4


def _rank(challenge: object, username: str) -> int | None:
    row = selectors.player_rank(challenge, _user(username))  # type: ignore[arg-type]
    return row.rank if row else None


def _user(username: str) -> object:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


def test_only_finished_counted_ranked_attempts_of_that_challenge_are_on_the_board() -> None:
    challenge, other = make_challenge(), make_challenge(dt.date(2030, 1, 2))
    make_attempt(challenge, make_player("ranked"), score=100)
    make_attempt(challenge, make_player("voided"), score=999, voided=True)
    make_attempt(challenge, make_player("playing"), ended_at=None)
    make_attempt(challenge, make_player("practice"), score=999, kind=Attempt.Kind.PRACTICE)
    make_attempt(other, make_player("elsewhere"), score=999)

    assert [r.username for r in selectors.leaderboard_for_day(challenge)] == ["ranked"]
    assert selectors.player_rank(challenge, _user("voided")) is None
    assert selectors.player_rank(challenge, _user("playing")) is None
    assert selectors.players_counts(challenge) == {"playing": 1, "finished": 1}


def test_limit_offset_and_own_rank_outside_the_top_50() -> None:
    challenge = make_challenge()
    players = [make_player(f"p{n:03}") for n in range(60)]
    for n, player in enumerate(players):
        make_attempt(challenge, player, score=1000 - n, elapsed=30 + n)

    top = selectors.leaderboard_for_day(challenge)
    assert len(top) == 50
    assert [r.rank for r in top] == list(range(1, 51))
    page = selectors.leaderboard_for_day(challenge, limit=5, offset=55)
    assert [(r.rank, r.username) for r in page] == [(56 + i, f"p{55 + i:03}") for i in range(5)]

    mine = selectors.player_rank(challenge, players[57])
    assert mine is not None
    assert (mine.rank, mine.username, mine.score) == (58, "p057", 943)
    assert selectors.player_rank(challenge, make_player("nobody")) is None


def test_streaks_current_and_best_across_gaps() -> None:
    player = make_player("streaky")
    today = dt.date(2030, 3, 20)
    won_days = [1, 2, 3, 4, 6, 7, 18, 19]  # March: a run of 4, a gap, 2, a gap, 2 to yesterday
    for day in range(1, 20):
        challenge = make_challenge(dt.date(2030, 3, day))
        if day in won_days:
            make_attempt(challenge, player, score=500, won=True)
        elif day == 10:
            make_attempt(challenge, player, score=500, won=True, voided=True)  # does not count
        elif day == 12:
            make_attempt(challenge, player, score=100, won=False)
    make_challenge(today)  # today's daily exists but is not played yet: the run is alive

    assert selectors.streaks(player, "astrocyte", today=today) == {
        "variant": "astrocyte",
        "current": 2,
        "best": 4,
        "last_won": dt.date(2030, 3, 19),
    }
    assert selectors.streaks(player, "astrocyte", today=dt.date(2030, 3, 22))["current"] == 0
    assert selectors.streaks(player, "spider1", today=today)["best"] == 0


def test_a_lost_daily_today_ends_the_current_streak() -> None:
    player = make_player("loser")
    today = dt.date(2030, 4, 2)
    make_attempt(make_challenge(dt.date(2030, 4, 1)), player, score=500, won=True)
    lost = make_attempt(make_challenge(today), player, score=50, won=False)
    assert selectors.streaks(player, "astrocyte", today=today)["current"] == 0
    lost.won = True
    lost.save()
    assert selectors.streaks(player, "astrocyte", today=today)["current"] == 2


def test_streak_board_ranks_current_streaks_and_agrees_with_each_players_streak() -> None:
    today = dt.date(2030, 5, 10)
    days = {
        "ada": [6, 7, 8, 9, 10],  # 5, through today
        "bob": [7, 8, 9],  # 3, to yesterday, today not played yet: alive
        "cy": [8, 9],  # 2, to yesterday, but lost today: 0
        "dee": [1, 2, 3, 4, 5, 6, 7, 8],  # 8, but ended two days ago: 0
        "eve": [9, 10],  # 2, through today
        "fay": [8, 9],  # 2, to yesterday (equal to eve: shared rank)
    }
    challenges = {day: make_challenge(dt.date(2030, 5, day)) for day in range(1, 11)}
    players = {name: make_player(name) for name in days}
    for name, won in days.items():
        for day in won:
            make_attempt(challenges[day], players[name], score=500, won=True)
    make_attempt(challenges[10], players["cy"], score=50, won=False)
    make_attempt(make_challenge(dt.date(2030, 5, 10), "spider1"), players["dee"], won=True)

    board = selectors.streak_board("astrocyte", today=today)
    assert [(row["rank"], row["username"], row["current"]) for row in board] == [
        (1, "ada", 5),
        (2, "bob", 3),
        (3, "eve", 2),
        (3, "fay", 2),
    ]
    for row in board:
        player = players[row["username"]]
        assert row["current"] == selectors.streaks(player, "astrocyte", today=today)["current"]
    assert [row["username"] for row in selectors.streak_board("astrocyte", 2, today)] == [
        "ada",
        "bob",
    ]
    assert [row["username"] for row in selectors.streak_board("spider1", today=today)] == ["dee"]


def test_player_stats() -> None:
    player = make_player("stats")
    for day, (score, won, runs) in enumerate(
        [(650, True, 8), (120, False, 2), (150, False, 3), (720, True, 8)], start=1
    ):
        make_attempt(make_challenge(dt.date(2030, 5, day)), player, score=score, won=won, runs=runs)
    make_attempt(make_challenge(dt.date(2030, 5, 9)), player, score=999, voided=True)
    spider = make_challenge(dt.date(2030, 5, 1), variant="spider1")
    make_attempt(spider, player, score=10, runs=0)

    stats = selectors.player_stats(player, "astrocyte")

    assert (stats["played"], stats["won"], stats["win_rate"]) == (4, 2, 0.5)
    assert (stats["best_score"], stats["average_score"]) == (720, 410.0)
    counts = {bucket["start"]: bucket["count"] for bucket in stats["score_histogram"]}
    assert counts == {0: 0, 100: 2, 200: 0, 300: 0, 400: 0, 500: 0, 600: 1, 700: 1}
    assert stats["score_histogram"][-1]["end"] is None
    assert stats["runs_histogram"] == [
        {"runs_completed": 2, "count": 1},
        {"runs_completed": 3, "count": 1},
        {"runs_completed": 8, "count": 2},
    ]
    everything = selectors.player_stats(player)
    assert (everything["played"], everything["best_score"]) == (5, 720)
    empty = selectors.player_stats(make_player("new"))
    assert (empty["played"], empty["win_rate"], empty["average_score"]) == (0, None, None)


def test_alltime_board_adds_up_only_won_dailies_in_the_window() -> None:
    today = dt.date(2030, 6, 30)
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    dave, erin = make_player("dave"), make_player("erin")
    inside = make_challenge(today)
    inside_spider = make_challenge(today, variant="spider1")
    yesterday = make_challenge(today - T(days=1))
    first_day = make_challenge(today - T(days=29))
    too_old = make_challenge(today - T(days=30))

    make_attempt(inside, alice, score=300, won=True, elapsed=100)
    make_attempt(inside_spider, alice, score=400, won=True, elapsed=200)  # a day's best win
    make_attempt(first_day, alice, score=100, won=True, elapsed=50)
    make_attempt(too_old, alice, score=900, won=True)  # outside the window
    make_attempt(inside, bob, score=450, won=True, elapsed=400)
    make_attempt(yesterday, bob, score=50, won=True, elapsed=60)
    make_attempt(yesterday, carol, score=999, won=True, voided=True)
    make_attempt(inside_spider, carol, score=20, won=True, elapsed=30)
    # Resigning after one action every day (499 a day) wins nothing.
    make_attempt(inside, dave, score=499, actions=1)
    make_attempt(yesterday, dave, score=499, actions=1)
    # Same total as alice and bob over fewer days: after them.
    make_attempt(yesterday, erin, score=500, won=True, elapsed=10)

    rows = selectors.alltime_board(days=30, today=today)

    assert rows == [
        # equal totals and days won: the shorter time of the wins first
        {"rank": 1, "username": "alice", "total_score": 500, "days": 2, "total_seconds": 250.0},
        {"rank": 2, "username": "bob", "total_score": 500, "days": 2, "total_seconds": 460.0},
        {"rank": 3, "username": "erin", "total_score": 500, "days": 1, "total_seconds": 10.0},
        {"rank": 4, "username": "carol", "total_score": 20, "days": 1, "total_seconds": 30.0},
    ]
    assert selectors.alltime_board(days=1, today=today)[0]["username"] == "bob"
    assert len(selectors.alltime_board(days=30, limit=1, today=today)) == 1


@pytest.mark.postgres
def test_board_and_rank_queries_use_the_board_index() -> None:
    challenge = make_challenge()
    player = make_player("indexed")
    attempt = make_attempt(challenge, player, score=100)
    # With one row, any index and a sort cost the planner about the same, so it may pick the
    # challenge's foreign-key index and sort (CI saw it once). Sorts off too: then only an
    # index that gives the board's order serves the top of the board without one.
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("SET enable_sort = off")
    board = selectors.board_attempts(challenge.pk).order_by(*selectors.BOARD_ORDER)
    top_plan = _explain(board[:50])
    ranges = [
        board.filter(score__gt=attempt.score),
        board.filter(score=attempt.score, elapsed_seconds__lt=attempt.elapsed_seconds),
        board.filter(score=attempt.score, elapsed_seconds=60, ended_at__lt=attempt.ended_at),
    ]
    assert "attempt_board_order" in top_plan and "Sort" not in top_plan, top_plan
    for queryset in ranges:
        assert "attempt_board_order" in _explain(queryset.values("id"))


def _explain(queryset: object) -> str:
    return queryset.explain()  # type: ignore[attr-defined]
