"""The leaderboards' REST endpoints: anyone may read; the signed-in player sees their rank."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import make_attempt

pytestmark = pytest.mark.django_db


def test_challenge_board_with_limit_counts_and_own_row_outside_the_top() -> None:
    challenge = make_challenge()
    players = [make_player(f"p{n:02}") for n in range(12)]
    for n, player in enumerate(players):
        make_attempt(challenge, player, score=500 - n)
    make_attempt(challenge, make_player("busy"), ended_at=None)
    client = Client()
    client.force_login(players[10])

    response = client.get(f"/api/v1/leaderboards/challenges/{challenge.pk}/?limit=3")

    assert response.status_code == 200
    body = response.json()
    assert [row["username"] for row in body["top"]] == ["p00", "p01", "p02"]
    assert body["top"][0]["rank"] == 1 and body["top"][0]["score"] == 500
    assert body["counts"] == {"playing": 1, "finished": 12}
    assert body["me"]["rank"] == 11 and body["me"]["username"] == "p10"
    assert body["challenge"]["id"] == challenge.pk
    assert "log" not in body["top"][0]


def test_challenge_board_for_anyone_and_errors_in_the_one_shape() -> None:
    challenge = make_challenge()
    client = Client()
    body = client.get(f"/api/v1/leaderboards/challenges/{challenge.pk}/").json()
    assert body["me"] is None and body["top"] == []
    missing = client.get("/api/v1/leaderboards/challenges/999999/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    bad = client.get(f"/api/v1/leaderboards/challenges/{challenge.pk}/?limit=0")
    assert bad.status_code == 400 and "limit" in bad.json()["error"]["details"]


def test_alltime_board() -> None:
    today = timezone.now().date()
    make_attempt(make_challenge(today), make_player("alice"), score=300, won=True, elapsed=90.0)
    make_attempt(make_challenge(today, "spider1"), make_player("carol"), score=499)  # not won
    make_attempt(
        make_challenge(today - dt.timedelta(days=1)), make_player("bob"), score=200, won=True
    )
    body = Client().get("/api/v1/leaderboards/alltime/?days=1").json()
    assert body == {
        "days": 1,
        "rows": [
            {"rank": 1, "username": "alice", "total_score": 300, "days": 1, "total_seconds": 90.0}
        ],
    }


def test_streak_board() -> None:
    today = timezone.now().date()
    player = make_player("sam")
    make_attempt(make_challenge(today - dt.timedelta(days=1)), player, score=600, won=True)
    make_attempt(make_challenge(today), player, score=640, won=True)
    body = Client().get("/api/v1/leaderboards/streaks/?variant=astrocyte").json()
    assert body == {
        "variant": "astrocyte",
        "rows": [{"rank": 1, "username": "sam", "current": 2, "last_won": today.isoformat()}],
    }
    assert Client().get("/api/v1/leaderboards/streaks/?variant=nope").status_code == 400


def test_player_stats_and_streaks() -> None:
    player = make_player("ann")
    today = timezone.now().date()
    make_attempt(make_challenge(today - dt.timedelta(days=1)), player, score=600, won=True)
    make_attempt(make_challenge(today), player, score=640, won=True, runs=8)

    body = Client().get("/api/v1/leaderboards/players/ann/").json()

    assert body["username"] == "ann"
    assert (body["stats"]["played"], body["stats"]["won"], body["stats"]["best_score"]) == (
        2,
        2,
        640,
    )
    assert body["streaks"] == [
        {"variant": "astrocyte", "current": 2, "best": 2, "last_won": today.isoformat()}
    ]
    assert Client().get("/api/v1/leaderboards/players/nobody/").status_code == 404
    assert Client().get("/api/v1/leaderboards/players/ann/?variant=nope").status_code == 400


def test_endpoints_are_in_the_openapi_schema() -> None:
    paths = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    assert "/api/v1/leaderboards/challenges/{challenge_id}/" in paths
    assert "/api/v1/leaderboards/alltime/" in paths
    assert "/api/v1/leaderboards/players/{username}/" in paths
    # What a client can get back, bad query parameters and unknown names included.
    answers = {
        "/api/v1/leaderboards/challenges/{challenge_id}/": {"200", "400", "404"},
        "/api/v1/leaderboards/alltime/": {"200", "400"},
        "/api/v1/leaderboards/streaks/": {"200", "400"},
        "/api/v1/leaderboards/players/{username}/": {"200", "400", "404"},
    }
    for path, codes in answers.items():
        assert codes <= set(paths[path]["get"]["responses"]), path
