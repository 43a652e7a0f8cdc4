"""A player's page (GET /api/v1/leaderboards/players/<name>/): ratings and their history, the
days played, best ranks and recent replays; and the player's choice to hide it, after which
everyone else gets exactly the answer an unknown name gets."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from leaderboards.ratings.services import ratings_rate_closed_days
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import make_attempt

pytestmark = pytest.mark.django_db

PAGE = "/api/v1/leaderboards/players/{}/"
PROFILE = "/api/v1/leaderboards/profile/"


def days_ago(n: int) -> dt.date:
    return timezone.now().date() - dt.timedelta(days=n)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_hidden_page_answers_others_exactly_as_an_unknown_name_and_its_owner_as_before() -> None:
    ann = make_player("ann")
    make_attempt(make_challenge(days_ago(1)), ann, score=300, won=True)
    owner = signed_in(ann)
    other = signed_in(make_player("bob"))
    assert other.get(PAGE.format("ann")).status_code == 200

    answer = owner.put(PROFILE, {"hidden": True}, content_type="application/json")

    assert answer.status_code == 200 and answer.json() == {"username": "ann", "hidden": True}
    unknown = other.get(PAGE.format("nobody"))
    for client in (other, Client()):
        hidden = client.get(PAGE.format("ann"))
        assert (hidden.status_code, hidden.content) == (unknown.status_code, unknown.content)
        assert unknown.status_code == 404
    mine = owner.get(PAGE.format("ann"))
    assert mine.status_code == 200
    assert mine.json()["hidden"] is True and mine.json()["stats"]["played"] == 1

    owner.put(PROFILE, {"hidden": False}, content_type="application/json")
    assert other.get(PAGE.format("ann")).json()["hidden"] is False


def test_the_page_setting_needs_a_signed_in_player_and_a_boolean() -> None:
    assert Client().put(PROFILE, {"hidden": True}, content_type="application/json").status_code in (
        401,
        403,
    )
    owner = signed_in(make_player("cat"))
    assert owner.get(PROFILE).json() == {"username": "cat", "hidden": False}
    # A JSON boolean only (docs/api.md): not the words and numbers DRF reads as one.
    for body in (
        {},
        {"hidden": "maybe"},
        {"hidden": [1]},
        {"hidden": "yes"},
        {"hidden": "true"},
        {"hidden": 1},
        {"hidden": None},
    ):
        bad = owner.put(PROFILE, body, content_type="application/json")
        assert bad.status_code == 400, body
        assert "hidden" in bad.json()["error"]["details"]
    assert owner.get(PROFILE).json()["hidden"] is False


def test_the_calendar_lists_the_days_played_and_the_replays_only_days_that_are_over() -> None:
    dan = make_player("dan")
    old = make_attempt(make_challenge(days_ago(3)), dan, score=250, won=True)
    make_attempt(make_challenge(days_ago(2), "spider1"), dan, score=40)
    make_attempt(make_challenge(days_ago(1)), dan, score=10, voided=True)
    make_attempt(make_challenge(days_ago(400)), dan, score=99)  # before the calendar's year
    today = make_attempt(make_challenge(days_ago(0)), dan, score=77)

    body = Client().get(PAGE.format("dan")).json()

    assert [(d["date"], d["variant"], d["won"], d["score"]) for d in body["calendar"]] == [
        (days_ago(3).isoformat(), "astrocyte", True, 250),
        (days_ago(2).isoformat(), "spider1", False, 40),
        (days_ago(0).isoformat(), "astrocyte", False, 77),
    ]
    replays = [r["attempt_id"] for r in body["recent_replays"]]
    assert today.pk not in replays  # today's game opens for everyone once the day is over
    assert replays[-2] == old.pk and len(replays) == 3
    only_astrocyte = Client().get(PAGE.format("dan") + "?variant=astrocyte").json()
    assert {d["variant"] for d in only_astrocyte["calendar"]} == {"astrocyte"}


def test_ratings_their_history_and_best_ranks_come_from_the_rated_days() -> None:
    eve, fay = make_player("eve"), make_player("fay")
    for n, (eve_score, fay_score) in enumerate([(300, 200), (100, 400), (500, 100)]):
        challenge = make_challenge(days_ago(3 - n))
        make_attempt(challenge, eve, score=eve_score)
        make_attempt(challenge, fay, score=fay_score)
    make_attempt(make_challenge(days_ago(0)), eve, score=999)  # today: not rated yet
    ratings_rate_closed_days()

    body = Client().get(PAGE.format("eve")).json()

    history = body["rating_history"]["astrocyte"]
    assert [(h["date"], h["rank"], h["players"]) for h in history] == [
        (days_ago(3).isoformat(), 1, 2),
        (days_ago(2).isoformat(), 2, 2),
        (days_ago(1).isoformat(), 1, 2),
    ]
    assert history[1]["rating"] < history[0]["rating"] < history[2]["rating"]
    assert all(h["rating_before"] == p["rating"] for p, h in itertools.pairwise(history))
    (rating,) = body["ratings"]
    assert rating["variant"] == "astrocyte" and rating["rated_days"] == 3
    assert rating["rating"] == history[-1]["rating"]
    assert [(b["date"], b["rank"]) for b in body["best_ranks"]] == [
        (days_ago(1).isoformat(), 1),
        (days_ago(3).isoformat(), 1),
        (days_ago(2).isoformat(), 2),
    ]
    assert Client().get(PAGE.format("eve") + "?variant=spider1").json()["ratings"] == []
