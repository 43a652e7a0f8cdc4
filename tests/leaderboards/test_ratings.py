"""Ratings (issue 31): each closed daily rated once as a match of its board, in date order;
the day-close job in both modes; the recompute; the rating board and the API."""

from __future__ import annotations

import datetime as dt
import io
import threading
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import close_old_connections, connection
from django.test import Client
from django.utils import timezone

from games.background_verifier import BackgroundVerifier
from games.embedded_beat import CLOSE_DAY, EmbeddedBeat
from games.models import Attempt, DailyChallenge
from leaderboards.ratings.math import MODEL, Skill
from leaderboards.ratings.models import PlayerRating, RatedDay, RatingChange
from leaderboards.ratings.selectors import player_ratings, rating_board, rating_history
from leaderboards.ratings.services import ratings_rate_closed_days, ratings_rate_day
from leaderboards.ratings.writes import CHANGE_COLUMNS
from leaderboards.selectors import leaderboard_for_day, player_rank
from leaderboards.tasks import RATE_CLOSED_DAYS_TASK, ratings_rate_closed_days_task
from tests.factories import make_challenge, make_player
from tests.games.api_support import client_for, past_challenge_of, playing, todays_challenge
from tests.leaderboards.conftest import BASE, make_attempt
from tests.threads_at_once import run_in_threads

pytestmark = pytest.mark.django_db


def days_ago(n: int) -> dt.date:
    return timezone.now().date() - dt.timedelta(days=n)


def openskill_day(skills: list[Skill], ranks: list[int]) -> list[tuple[float, float]]:
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    return [(t[0].mu, t[0].sigma) for t in MODEL.rate(teams, ranks=[float(r) for r in ranks])]


def a_board(challenge: DailyChallenge, names: list[str], **extra: Any) -> list[Any]:
    """One attempt per name, better first (score 500, 490, ...)."""
    players = []
    for n, name in enumerate(names):
        player = make_player(name) if isinstance(name, str) else name
        make_attempt(challenge, player, score=500 - 10 * n, **extra)
        players.append(player)
    return players


def stored(challenge: DailyChallenge) -> dict[str, tuple[int, int, float, float]]:
    return {
        c.player.username: (c.rank, c.players, c.mu_after, c.sigma_after)
        for c in RatingChange.objects.filter(challenge=challenge).select_related("player")
    }


# --- one day ------------------------------------------------------------------------


def test_a_closed_day_is_rated_once_in_board_order_with_ties_sharing_a_rank() -> None:
    challenge = make_challenge(days_ago(1))
    winner, second, third, last = (make_player(n) for n in ("win", "tie-a", "tie-b", "last"))
    make_attempt(challenge, winner, score=300, won=True)
    # tie-a and tie-b: equal in all four keys of the board (won, score, time, end).
    make_attempt(challenge, second, score=450, elapsed=50.0, ended_at=BASE)
    make_attempt(challenge, third, score=450, elapsed=50.0, ended_at=BASE)
    make_attempt(challenge, last, score=100)
    make_attempt(challenge, make_player("voided"), score=999, voided=True)
    make_attempt(challenge, make_player("no-action"), score=500, actions=0)
    make_attempt(challenge, make_player("practice"), score=999, kind=Attempt.Kind.PRACTICE)

    assert ratings_rate_day(challenge_id=challenge.pk) == "rated"

    changes = stored(challenge)
    assert {name: rank for name, (rank, *_) in changes.items()} == {
        "win": 1,
        "tie-a": 2,
        "tie-b": 2,
        "last": 4,
    }
    assert {players for _, players, *_ in changes.values()} == {4}
    fresh = Skill(MODEL.mu, MODEL.sigma)
    expected = openskill_day([fresh] * 4, [1, 2, 2, 4])
    for name, (mu, sigma) in zip(("win", "tie-a", "tie-b", "last"), expected, strict=True):
        assert changes[name][2:] == pytest.approx((mu, sigma), abs=1e-9)
    assert changes["tie-a"][2:] == changes["tie-b"][2:]
    rating = PlayerRating.objects.get(player=winner, variant=challenge.variant)
    assert rating.rated_days == 1 and rating.last_challenge_id == challenge.pk
    assert rating.rating == pytest.approx(rating.mu - 3 * rating.sigma)
    assert RatedDay.objects.get(challenge=challenge).players == 4

    # Twice: nothing more.
    assert ratings_rate_day(challenge_id=challenge.pk) == "already_rated"
    assert ratings_rate_closed_days() == []
    assert RatingChange.objects.count() == 4
    assert PlayerRating.objects.get(player=winner).rated_days == 1


def test_a_player_who_played_on_is_rated_above_one_who_gave_up_at_once() -> None:
    """The ratings learn the board's order (docs/rules.md): progress before score."""
    challenge = make_challenge(days_ago(1))
    quitter, player = make_player("dora"), make_player("nova")
    make_attempt(challenge, quitter, score=498, elapsed=3, actions=1, turned=0)
    make_attempt(challenge, player, score=360, elapsed=190, actions=47, turned=21)

    assert ratings_rate_day(challenge_id=challenge.pk) == "rated"

    changes = stored(challenge)
    assert (changes["nova"][0], changes["dora"][0]) == (1, 2)
    rated = {r.player.username: r.rating for r in PlayerRating.objects.select_related("player")}
    assert rated["nova"] > rated["dora"]


def test_a_second_day_starts_from_the_first_days_ratings() -> None:
    first, second = make_challenge(days_ago(2)), make_challenge(days_ago(1))
    players = a_board(first, ["a", "b", "c"])
    a_board(second, [players[2], players[1], players[0], "new"])

    assert ratings_rate_closed_days() == [first.pk, second.pk]

    firsts = [RatingChange.objects.get(challenge=first, player=p) for p in reversed(players)]
    before = [Skill(c.mu_after, c.sigma_after) for c in firsts]
    expected = openskill_day([*before, Skill(MODEL.mu, MODEL.sigma)], [1, 2, 3, 4])
    got = stored(second)
    for name, (mu, sigma) in zip(("c", "b", "a", "new"), expected, strict=True):
        assert got[name][2:] == pytest.approx((mu, sigma), abs=1e-9)
    assert PlayerRating.objects.get(player=players[0]).rated_days == 2
    history = rating_history(players[0], first.variant)
    assert [day["challenge_id"] for day in history] == [first.pk, second.pk]
    assert history[1]["rating_before"] == pytest.approx(history[0]["rating"])
    assert history[1]["rank"] == 3 and history[1]["players"] == 4


def test_an_open_day_is_never_rated() -> None:
    today = make_challenge(timezone.now().date())
    a_board(today, ["x", "y", "z"])

    assert ratings_rate_day(challenge_id=today.pk) == "day_open"
    assert ratings_rate_closed_days() == []
    assert not PlayerRating.objects.exists() and not RatedDay.objects.exists()


def test_a_day_with_an_open_ranked_attempt_waits_and_so_do_the_days_after_it() -> None:
    older, newer = make_challenge(days_ago(2)), make_challenge(days_ago(1))
    a_board(older, ["a", "b"])
    still_open = make_attempt(older, make_player("open"), ended_at=None)
    a_board(newer, ["c", "d"])

    assert ratings_rate_day(challenge_id=older.pk) == "attempts_open"
    assert ratings_rate_day(challenge_id=newer.pk) == "earlier_unrated"
    assert ratings_rate_closed_days() == []

    Attempt.objects.filter(pk=still_open.pk).update(ended_at=BASE, score=0, elapsed_seconds=1.0)
    assert ratings_rate_closed_days() == [older.pk, newer.pk]


def test_a_day_of_one_player_is_rated_without_a_change() -> None:
    alone = make_challenge(days_ago(1))
    a_board(alone, ["alone"])

    assert ratings_rate_day(challenge_id=alone.pk) == "rated"
    assert RatedDay.objects.get(challenge=alone).players == 1
    assert not PlayerRating.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_rating_the_same_day_at_once_rate_it_once() -> None:
    challenge = make_challenge(days_ago(1))
    a_board(challenge, [f"p{n}" for n in range(200)])
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def rate() -> None:
        try:
            barrier.wait()
            outcomes.append(ratings_rate_day(challenge_id=challenge.pk))
        finally:
            connection.close()

    run_in_threads(rate, [()] * 2, timeout=60)
    close_old_connections()

    assert sorted(outcomes) == ["already_rated", "rated"]
    assert RatingChange.objects.filter(challenge=challenge).count() == 200
    assert set(PlayerRating.objects.values_list("rated_days", flat=True)) == {1}


# --- the day-close job --------------------------------------------------------------


def beat_of(*tasks: str) -> EmbeddedBeat:
    jobs = EmbeddedBeat.from_settings(BackgroundVerifier()).jobs
    return EmbeddedBeat([job for job in jobs if job.task in tasks])


@pytest.mark.django_db(transaction=True)  # the beat closes its connection after each job
def test_the_embedded_beat_closes_the_day_then_rates_it(settings: Any) -> None:
    assert {
        "task": RATE_CLOSED_DAYS_TASK,
        "schedule": settings.CELERY_BEAT_SCHEDULE["ratings-rate-closed-days"]["schedule"],
    } in settings.CELERY_BEAT_SCHEDULE.values()
    challenge = todays_challenge()
    left_open = [playing(challenge, actions) for actions in (3, 6)]
    past_challenge_of(challenge)

    beat = beat_of(CLOSE_DAY, RATE_CLOSED_DAYS_TASK)
    assert [job.task for job in beat.jobs] == [CLOSE_DAY, RATE_CLOSED_DAYS_TASK]
    assert beat.run_due() == [CLOSE_DAY, RATE_CLOSED_DAYS_TASK]

    assert not Attempt.objects.filter(ended_at__isnull=True).exists()
    assert RatedDay.objects.get(challenge=challenge).players == 2
    ranks = {c.player_id: c.rank for c in RatingChange.objects.filter(challenge=challenge)}
    board = {row.username: row.rank for row in leaderboard_for_day(challenge)}
    assert {p.username: ranks[p.pk] for p, _ in left_open} == board
    assert sorted(board.values()) == [1, 2]
    assert beat_of(RATE_CLOSED_DAYS_TASK).run_due() == [RATE_CLOSED_DAYS_TASK]
    assert RatingChange.objects.count() == 2


@pytest.mark.celery
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_celery_task_rates_the_closed_days(celery_worker: Any) -> None:
    challenge = make_challenge(days_ago(1))
    a_board(challenge, ["a", "b", "c"])
    today = make_challenge(timezone.now().date())
    a_board(today, ["d", "e"])

    outcome = ratings_rate_closed_days_task.delay().get(timeout=celery_worker.timeout)

    assert outcome == "rated 1 closed day(s)"
    assert list(RatedDay.objects.values_list("challenge_id", flat=True)) == [challenge.pk]
    again = ratings_rate_closed_days_task.delay().get(timeout=celery_worker.timeout)
    assert again == "rated 0 closed day(s)"


# --- the recompute ------------------------------------------------------------------


def every_number() -> dict[str, Any]:
    return {
        "ratings": sorted(
            PlayerRating.objects.values_list(
                "player_id", "variant", "mu", "sigma", "rating", "rated_days", "last_challenge_id"
            )
        ),
        "changes": sorted(RatingChange.objects.values_list(*CHANGE_COLUMNS)),
        "days": sorted(RatedDay.objects.values_list("challenge_id", "variant", "date", "players")),
    }


def test_the_recompute_gives_exactly_the_numbers_of_the_day_close_job() -> None:
    players = [make_player(f"r{n}") for n in range(9)]
    for day in range(6, 0, -1):
        for variant in ("astrocyte", "spider1"):
            challenge = make_challenge(days_ago(day), variant=variant)
            # A different order and field each day, with a tie now and then.
            field = players[day % 3 :] if variant == "astrocyte" else players[: 9 - day]
            for n, player in enumerate(field):
                make_attempt(
                    challenge,
                    player,
                    score=(n * 7 + day * 13) % 40 // (2 if day % 2 else 1),
                    won=(n + day) % 4 == 0,
                )
        ratings_rate_closed_days()  # the job, as each day closed
    job = every_number()
    assert len(job["days"]) == 12 and len(job["changes"]) > 60

    call_command("ratings_recompute", stdout=io.StringIO())
    assert every_number() == job

    call_command("ratings_recompute", "--variant", "spider1", stdout=io.StringIO())
    assert every_number() == job
    with pytest.raises(CommandError, match="unknown variant"):
        call_command("ratings_recompute", "--variant", "chess")


# --- the rating board and the API ---------------------------------------------------


def three_days_and_two() -> None:
    """ann, bob and cyd play three closed days; dan only two; eve one."""
    names = ["ann", "bob", "cyd", "dan", "eve"]
    players = {name: make_player(name) for name in names}
    for day in (3, 2, 1):
        challenge = make_challenge(days_ago(day))
        field = ["cyd", "ann", "bob"] + (["dan"] if day < 3 else []) + (["eve"] if day == 1 else [])
        for n, name in enumerate(field):
            make_attempt(challenge, players[name], score=500 - n)
    ratings_rate_closed_days()


def test_the_rating_board_lists_players_of_three_rated_days_best_first() -> None:
    three_days_and_two()

    board = rating_board("astrocyte")

    assert [row["username"] for row in board] == ["cyd", "ann", "bob"]
    assert [row["rank"] for row in board] == [1, 2, 3]
    assert all(row["rated_days"] == 3 for row in board)
    ratings = [row["rating"] for row in board]
    assert ratings == sorted(ratings, reverse=True)
    assert rating_board("spider1") == []
    dan = PlayerRating.objects.get(player__username="dan")
    assert dan.rated_days == 2  # rated, not on the board yet


def test_equal_ratings_share_a_rank_and_are_listed_by_username() -> None:
    players = [make_player("zed"), make_player("amy")]
    for day in (3, 2, 1):
        challenge = make_challenge(days_ago(day))
        for player in players:
            make_attempt(challenge, player, score=100, elapsed=10.0, ended_at=BASE)
    ratings_rate_closed_days()

    board = rating_board("astrocyte")

    assert [(row["rank"], row["username"]) for row in board] == [(1, "amy"), (1, "zed")]


def test_the_rating_board_api_and_its_errors() -> None:
    three_days_and_two()
    client = Client()

    answer = client.get("/api/v1/leaderboards/ratings/?variant=astrocyte&limit=2")
    assert answer.status_code == 200
    body = answer.json()
    assert body["variant"] == "astrocyte" and body["min_rated_days"] == 3
    assert [row["username"] for row in body["rows"]] == ["cyd", "ann"]
    assert set(body["rows"][0]) == {"rank", "username", "rating", "mu", "sigma", "rated_days"}
    assert client.get("/api/v1/leaderboards/ratings/").json()["variant"] == "astrocyte"

    for query, field in [
        ("variant=chess", "variant"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("limit=ten", "limit"),
        ("limit=99999999999999999999999", "limit"),
    ]:
        bad = client.get(f"/api/v1/leaderboards/ratings/?{query}")
        assert bad.status_code == 400, query
        error = bad.json()["error"]
        assert error["code"] == "invalid" and field in error["details"], (query, error)


def test_a_players_ratings_and_history_selectors() -> None:
    three_days_and_two()
    ann = PlayerRating.objects.get(player__username="ann").player

    (astrocyte,) = player_ratings(ann)
    assert astrocyte["variant"] == "astrocyte" and astrocyte["rated_days"] == 3
    history = rating_history(ann, "astrocyte")
    assert [day["date"] for day in history] == [days_ago(3), days_ago(2), days_ago(1)]
    assert astrocyte["last_change"] == history[-1]
    assert astrocyte["rating"] == pytest.approx(history[-1]["rating"])
    assert [day["rank"] for day in history] == [2, 2, 2]
    assert rating_history(ann, "spider1") == []


@pytest.mark.django_db(transaction=True)
def test_the_result_panels_rating_before_and_after_the_day_is_rated() -> None:
    challenge = todays_challenge()
    player, attempt = playing(challenge, 4)
    rival, _ = playing(challenge, 2)
    client = client_for(player)
    url = f"/api/v1/leaderboards/ratings/attempts/{attempt.pk}/"

    open_day = client.get(url).json()
    assert open_day["rated"] is False and open_day["change"] is None
    assert open_day["current"] is None
    assert "updates when the day closes" in open_day["message"]
    assert client_for(rival).get(url).status_code == 404
    assert Client().get(url).status_code in (401, 403)

    past_challenge_of(challenge)
    beat_of(CLOSE_DAY, RATE_CLOSED_DAYS_TASK).run_due()

    rated = client.get(url).json()
    assert rated["rated"] is True
    assert rated["change"]["rank"] == player_rank(challenge, player).rank  # type: ignore[union-attr]
    assert rated["change"]["players"] == 2
    assert rated["change"]["rating_before"] == pytest.approx(0.0)
    assert rated["current"]["rating"] == pytest.approx(rated["change"]["rating"])
    assert rated["current"]["rated_days"] == 1
    assert "→" in rated["message"]


def test_the_attempt_rating_of_no_attempt_or_a_practice_one_is_404() -> None:
    player = make_player("solo")
    practice = make_attempt(make_challenge(days_ago(1)), player, kind=Attempt.Kind.PRACTICE)
    client = client_for(player)
    for attempt_id in (0, 99999999999999999999999, practice.pk):
        answer = client.get(f"/api/v1/leaderboards/ratings/attempts/{attempt_id}/")
        assert answer.status_code == 404, attempt_id
        assert answer.json()["error"]["code"] == "not_found"
