"""Every hand-written SQL reader returns what the ORM returns, value for value and type for
type, on the database this run uses: CI runs these on SQLite (the embedded default) and on
PostgreSQL. The first run of the README once answered 500 to every token because SQLite
hands a raw cursor naive datetimes that the ORM would have made aware.

The readers: the token's user (accounts/authentication.py), the attempt under lock with
its deal and challenge (games/services/attempt_rows.py), the all-time board
(leaderboards/selectors.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.authentication import TokenAuthentication
from games.models import Attempt, Deal
from games.services.attempt_rows import ATTEMPT_FIELDS, CHALLENGE_FIELDS, DEAL_FIELDS, lock_attempt
from leaderboards import selectors
from tests.factories import make_challenge, make_player
from tests.games.api_support import playing, todays_challenge
from tests.leaderboards.conftest import make_attempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_throttles")]


def same_values(read: Any, orm: Any, names: tuple[str, ...] | list[str]) -> None:
    """Each field equal, of the same type, and aware where the ORM's is a datetime."""
    for name in names:
        mine, theirs = getattr(read, name), getattr(orm, name)
        assert (name, mine) == (name, theirs)
        assert (name, type(mine)) == (name, type(theirs))
        if isinstance(theirs, dt.datetime):
            assert timezone.is_aware(mine), f"{name} is naive on {connection.vendor}"


def test_a_token_authenticates_an_api_request() -> None:
    player = make_player("tokenholder")
    token = Token.objects.create(user=player)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get("/api/v1/challenges/today/")
    assert response.status_code == 200, response.content
    assert client.get("/api/v1/auth/me/").json()["user"]["username"] == "tokenholder"


def test_the_token_reader_gives_the_user_the_orm_gives() -> None:
    player = make_player("reader")
    player.last_login = timezone.now()
    player.save()
    token = Token.objects.create(user=player)
    user, read_token = TokenAuthentication().authenticate_credentials(token.key)
    orm = get_user_model().objects.get(pk=player.pk)
    same_values(user, orm, [field.attname for field in orm._meta.concrete_fields])
    assert (read_token.key, read_token.user_id) == (token.key, player.pk)


def test_an_expired_token_is_a_401_naming_it_not_a_500(settings: Any) -> None:
    settings.API_TOKEN_DAYS = 30
    token = Token.objects.create(user=make_player("old"))
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - dt.timedelta(days=31))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get("/api/v1/auth/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token_expired"


def test_the_locked_attempt_is_the_attempt_the_orm_reads() -> None:
    _, attempt = playing(todays_challenge(), actions=3)
    Attempt.objects.filter(pk=attempt.pk).update(last_action_at=timezone.now())
    with transaction.atomic():
        read = lock_attempt(attempt.pk, by_player=False)
    assert read is not None
    orm = Attempt.objects.select_related("deal", "challenge").get(pk=attempt.pk)
    same_values(read, orm, ATTEMPT_FIELDS)
    same_values(read.deal, orm.deal, DEAL_FIELDS)
    assert orm.challenge is not None and read.challenge is not None
    same_values(read.challenge, orm.challenge, CHALLENGE_FIELDS)
    assert isinstance(read.challenge.date, dt.date)


def test_a_practice_attempt_under_lock_has_no_challenge() -> None:
    deal = Deal.objects.get(pk=todays_challenge().deal_id)
    attempt = Attempt.objects.create(
        player=make_player(), deal=deal, kind=Attempt.Kind.PRACTICE, started_at=timezone.now()
    )
    with transaction.atomic():
        read = lock_attempt(attempt.pk, by_player=False)
    assert read is not None and read.challenge_id is None
    same_values(read, Attempt.objects.get(pk=attempt.pk), ATTEMPT_FIELDS)


def test_the_alltime_board_adds_what_the_orm_reads() -> None:
    today = timezone.now().date()
    days = [make_challenge(today - dt.timedelta(days=n)) for n in range(3)]
    for n, name in enumerate(("ann", "ben", "cy")):
        player = make_player(name)
        for m, challenge in enumerate(days[: n + 1]):
            make_attempt(challenge, player, score=100 + 10 * m, won=True, elapsed=12.25 * (m + 1))
    rows = selectors.alltime_board(days=30, today=today)
    expected: dict[str, tuple[int, int, float]] = {}
    for attempt in Attempt.objects.filter(won=True).select_related("player"):
        total, count, seconds = expected.get(attempt.player.username, (0, 0, 0.0))
        expected[attempt.player.username] = (
            total + (attempt.score or 0),
            count + 1,
            seconds + (attempt.elapsed_seconds or 0.0),
        )
    assert {r["username"]: (r["total_score"], r["days"], r["total_seconds"]) for r in rows} == (
        expected
    )
    for row in rows:
        assert [type(row[key]) for key in ("rank", "total_score", "days", "total_seconds")] == [
            int,
            int,
            int,
            float,
        ]
    assert [row["rank"] for row in rows] == [1, 2, 3]
