"""Leagues over the API: create, invite, join, leave, remove, hand over, delete, and every
bad input of issue 16 (a clear error, nothing half-done); boards filtered to members."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from leaderboards.models import LEAGUE_MAX_MEMBERS, League, LeagueMember
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import make_attempt
from tests.threads_at_once import run_in_threads

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def create(owner: Any, name: str = "Friends") -> dict[str, Any]:
    response = client_for(owner).post("/api/v1/leagues/", {"name": name}, format="json")
    assert response.status_code == 201, response.json()
    body: dict[str, Any] = response.json()
    return body


def join(player: Any, code: str) -> Any:
    return client_for(player).post("/api/v1/leagues/join/", {"code": code}, format="json")


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error


def member_names(league_id: int) -> set[str]:
    return set(
        LeagueMember.objects.filter(league_id=league_id).values_list("player__username", flat=True)
    )


def test_create_join_by_the_invite_and_see_the_league() -> None:
    owner, friend = make_player("olga"), make_player("fred")
    league = create(owner)
    assert league["name"] == "Friends" and league["owner"] == "olga" and league["is_owner"]
    assert league["members"][0]["username"] == "olga" and league["members"][0]["owner"]
    assert league["invite_path"] == f"/leagues/join/{league['invite_code']}/"

    first = join(friend, league["invite_code"])
    again = join(friend, league["invite_code"])

    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["member_count"] == 2 and not first.json()["is_owner"]
    mine = client_for(friend).get("/api/v1/leagues/").json()
    assert [(row["id"], row["member_count"]) for row in mine] == [(league["id"], 2)]
    seen = client_for(friend).get(f"/api/v1/leagues/{league['id']}/").json()
    assert [m["username"] for m in seen["members"]] == ["olga", "fred"]


def test_a_non_member_gets_the_answer_of_an_unknown_id() -> None:
    league = create(make_player("owner"))
    stranger = client_for(make_player("stranger"))
    challenge = make_challenge()
    for tail in ("", "alltime/", "streaks/", f"challenges/{challenge.pk}/"):
        known = stranger.get(f"/api/v1/leagues/{league['id']}/{tail}")
        unknown = stranger.get(f"/api/v1/leagues/999999/{tail}")
        error_of(known, 404, "not_found")
        assert known.json() == unknown.json()
        assert "owner" not in known.content.decode() and "Friends" not in known.content.decode()
    error_of(stranger.post(f"/api/v1/leagues/{league['id']}/leave/"), 404, "not_found")
    error_of(stranger.delete(f"/api/v1/leagues/{league['id']}/"), 404, "not_found")
    assert APIClient().get("/api/v1/leagues/").status_code in (401, 403)


@pytest.mark.parametrize(
    ("name", "detail"),
    [("", "blank"), ("   ", "blank"), ("x" * 61, "60"), (None, "null")],
)
def test_a_bad_league_name_is_refused_with_its_field(name: Any, detail: str) -> None:
    owner = make_player()
    response = client_for(owner).post("/api/v1/leagues/", {"name": name}, format="json")
    error = error_of(response, 400, "invalid")
    assert detail in str(error["details"]["name"])
    assert not League.objects.exists()


def test_a_name_already_used_by_the_same_owner_is_refused_another_owner_may() -> None:
    owner = make_player()
    create(owner, "Office")
    response = client_for(owner).post("/api/v1/leagues/", {"name": " office "}, format="json")
    error = error_of(response, 409, "league_name_taken")
    assert error["details"] == {"field": "name"}
    assert League.objects.count() == 1 and LeagueMember.objects.count() == 1
    create(make_player(), "Office")


def test_a_wrong_or_rotated_code_is_refused() -> None:
    owner, late = make_player(), make_player()
    league = create(owner)
    error = error_of(join(late, "not-a-code"), 400, "invite_invalid")
    assert error["details"] == {"field": "code"}
    error_of(join(late, ""), 400, "invalid")

    rotated = client_for(owner).post(f"/api/v1/leagues/{league['id']}/invite/")

    assert rotated.status_code == 200
    new_code = rotated.json()["invite_code"]
    assert new_code != league["invite_code"]
    error_of(join(late, league["invite_code"]), 400, "invite_invalid")
    assert join(late, new_code).status_code == 201
    member = client_for(late)
    error_of(member.post(f"/api/v1/leagues/{league['id']}/invite/"), 403, "not_league_owner")


def test_a_removed_member_cannot_rejoin_by_the_old_link_but_by_a_new_one() -> None:
    owner, gone = make_player("owner"), make_player("gone")
    league = create(owner)
    join(gone, league["invite_code"])
    path = f"/api/v1/leagues/{league['id']}/members/gone/"
    error_of(client_for(gone).delete(path), 403, "not_league_owner")

    assert client_for(owner).delete(path).status_code == 204

    assert member_names(league["id"]) == {"owner"}
    error_of(client_for(gone).get(f"/api/v1/leagues/{league['id']}/"), 404, "not_found")
    error_of(join(gone, league["invite_code"]), 403, "removed_from_league")
    assert member_names(league["id"]) == {"owner"}
    error_of(client_for(owner).delete(path), 404, "not_a_member")
    new_code = client_for(owner).post(f"/api/v1/leagues/{league['id']}/invite/").json()
    assert join(gone, new_code["invite_code"]).status_code == 201


def league_of(members: int) -> dict[str, Any]:
    """A new league of ``members`` players, its owner one of them."""
    league = create(make_player())
    LeagueMember.objects.bulk_create(
        LeagueMember(league_id=league["id"], player=make_player()) for _ in range(members - 1)
    )
    return league


def test_a_full_league_refuses_the_next_player() -> None:
    league = league_of(LEAGUE_MAX_MEMBERS)
    error = error_of(join(make_player(), league["invite_code"]), 409, "league_full")
    assert error["details"] == {"max_members": LEAGUE_MAX_MEMBERS}
    assert LeagueMember.objects.filter(league_id=league["id"]).count() == LEAGUE_MAX_MEMBERS


@pytest.mark.django_db(transaction=True)
def test_the_cap_holds_when_players_join_at_the_same_moment() -> None:
    league = league_of(LEAGUE_MAX_MEMBERS - 2)
    joiners = [make_player() for _ in range(6)]
    barrier = threading.Barrier(len(joiners))
    codes: list[int] = []

    def go(player: Any) -> None:
        try:
            client = client_for(player)
            barrier.wait()
            response = client.post(
                "/api/v1/leagues/join/", {"code": league["invite_code"]}, format="json"
            )
            codes.append(response.status_code)
        finally:
            connection.close()

    run_in_threads(go, [(player,) for player in joiners])
    assert sorted(codes) == [201, 201, 409, 409, 409, 409]
    assert LeagueMember.objects.filter(league_id=league["id"]).count() == LEAGUE_MAX_MEMBERS


def test_leave_hand_over_and_delete() -> None:
    owner, heir, other = make_player("owner"), make_player("heir"), make_player("other")
    league = create(owner)
    for player in (heir, other):
        join(player, league["invite_code"])
    base = f"/api/v1/leagues/{league['id']}"
    error_of(client_for(owner).post(f"{base}/leave/"), 409, "owner_cannot_leave")
    error_of(client_for(owner).delete(f"{base}/members/owner/"), 409, "owner_cannot_leave")
    error = error_of(
        client_for(owner).post(f"{base}/owner/", {"username": "nobody"}, format="json"),
        404,
        "not_a_member",
    )
    assert error["details"] == {"field": "username"}
    error_of(client_for(owner).post(f"{base}/owner/", {}, format="json"), 400, "invalid")

    handed = client_for(owner).post(f"{base}/owner/", {"username": "heir"}, format="json")

    assert handed.status_code == 200 and handed.json()["owner"] == "heir"
    assert client_for(owner).post(f"{base}/leave/").status_code == 204
    assert client_for(other).post(f"{base}/leave/").status_code == 204
    assert member_names(league["id"]) == {"heir"}
    error_of(client_for(other).delete(f"{base}/"), 404, "not_found")
    assert client_for(heir).delete(f"{base}/").status_code == 204
    assert not League.objects.exists() and not LeagueMember.objects.exists()


def test_handing_over_to_one_who_owns_a_league_of_that_name_is_refused() -> None:
    owner, heir = make_player(), make_player("heir")
    league = create(owner, "Club")
    create(heir, "club")
    join(heir, league["invite_code"])
    response = client_for(owner).post(
        f"/api/v1/leagues/{league['id']}/owner/", {"username": "heir"}, format="json"
    )
    error_of(response, 409, "league_name_taken")
    assert League.objects.get(pk=league["id"]).owner_id == owner.pk


def test_the_day_board_of_a_league_ranks_its_members_only() -> None:
    challenge = make_challenge()
    owner, ann, bob, outsider = (make_player(n) for n in ("owner", "ann", "bob", "zed"))
    league = create(owner)
    for player in (ann, bob):
        join(player, league["invite_code"])
    make_attempt(challenge, outsider, score=900, won=True)
    make_attempt(challenge, bob, score=400, won=True)
    make_attempt(challenge, ann, score=450)  # not won: below every win
    make_attempt(challenge, owner, ended_at=None)  # playing
    client = client_for(ann)

    body = client.get(f"/api/v1/leagues/{league['id']}/challenges/{challenge.pk}/").json()

    assert [(row["rank"], row["username"]) for row in body["top"]] == [(1, "bob"), (2, "ann")]
    assert body["me"]["rank"] == 2 and body["me"]["username"] == "ann"
    assert body["counts"] == {"playing": 1, "finished": 2}
    assert body["league"] == {"id": league["id"], "name": "Friends"}
    assert "log" not in body["top"][0]
    page = client.get(f"/api/v1/leagues/{league['id']}/challenges/{challenge.pk}/?limit=1&offset=1")
    assert [row["username"] for row in page.json()["top"]] == ["ann"]
    bad = client.get(f"/api/v1/leagues/{league['id']}/challenges/{challenge.pk}/?limit=0")
    assert "limit" in error_of(bad, 400, "invalid")["details"]
    error_of(client.get(f"/api/v1/leagues/{league['id']}/challenges/999999/"), 404, "not_found")


def test_a_leagues_board_ranks_progress_before_score() -> None:
    challenge = make_challenge()
    owner, ann = make_player("owner"), make_player("ann")
    league = create(owner)
    join(ann, league["invite_code"])
    make_attempt(challenge, owner, score=498, elapsed=3, actions=1, turned=0)  # gave up at once
    make_attempt(challenge, ann, score=360, actions=47, turned=21)

    body = client_for(owner).get(f"/api/v1/leagues/{league['id']}/challenges/{challenge.pk}/")

    top = body.json()["top"]
    assert [(row["rank"], row["username"], row["cards_turned_up"]) for row in top] == [
        (1, "ann", 21),
        (2, "owner", 0),
    ]
    assert body.json()["challenge"]["face_down_dealt"] == 56


def test_the_alltime_and_streak_boards_of_a_league() -> None:
    today = timezone.now().date()
    yesterday = today - dt.timedelta(days=1)
    owner, ann, outsider = make_player("owner"), make_player("ann"), make_player("zed")
    league = create(owner)
    join(ann, league["invite_code"])
    for day in (yesterday, today):
        challenge = make_challenge(day)
        make_attempt(challenge, ann, score=300, won=True, elapsed=100.0)
        make_attempt(challenge, outsider, score=600, won=True)
    make_attempt(make_challenge(today, "spider1"), owner, score=200, won=True, elapsed=50.0)
    client = client_for(owner)

    alltime = client.get(f"/api/v1/leagues/{league['id']}/alltime/?days=7").json()
    streaks = client.get(f"/api/v1/leagues/{league['id']}/streaks/?variant=astrocyte").json()

    assert alltime["rows"] == [
        {"rank": 1, "username": "ann", "total_score": 600, "days": 2, "total_seconds": 200.0},
        {"rank": 2, "username": "owner", "total_score": 200, "days": 1, "total_seconds": 50.0},
    ]
    assert streaks["rows"] == [
        {"rank": 1, "username": "ann", "current": 2, "last_won": today.isoformat()}
    ]
    bad = client.get(f"/api/v1/leagues/{league['id']}/streaks/?variant=nope")
    assert "variant" in error_of(bad, 400, "invalid")["details"]


def test_the_leagues_api_is_in_the_schema() -> None:
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    paths = schema["paths"]
    for path in (
        "/api/v1/leagues/",
        "/api/v1/leagues/join/",
        "/api/v1/leagues/{league_id}/",
        "/api/v1/leagues/{league_id}/invite/",
        "/api/v1/leagues/{league_id}/members/{username}/",
        "/api/v1/leagues/{league_id}/challenges/{challenge_id}/",
        "/api/v1/leagues/{league_id}/alltime/",
        "/api/v1/leagues/{league_id}/streaks/",
    ):
        assert path in paths, path
    assert "409" in paths["/api/v1/leagues/join/"]["post"]["responses"]


def test_your_rank_in_the_league_outside_the_page_follows_the_boards_order() -> None:
    challenge = make_challenge()
    owner = make_player("owner")
    league = create(owner)
    games = [  # (name, score, elapsed, won): the order docs/rules.md gives, best first
        ("w1", 300, 50.0, True),
        ("w2", 300, 70.0, True),
        ("l1", 600, 10.0, False),
        ("l2", 500, 10.0, False),
        ("l3", 500, 20.0, False),
    ]
    for name, score, elapsed, won in games:
        player = make_player(name)
        join(player, league["invite_code"])
        make_attempt(challenge, player, score=score, elapsed=elapsed, won=won)
    make_attempt(challenge, make_player("zz"), score=999, won=True)  # not a member
    for position, (name, *_) in enumerate(games, start=1):
        player = get_user_model().objects.get(username=name)
        body = (
            client_for(player)
            .get(f"/api/v1/leagues/{league['id']}/challenges/{challenge.pk}/?limit=1")
            .json()
        )
        assert body["me"]["rank"] == position, name
        assert [row["username"] for row in body["top"]] == ["w1"]
        assert body["counts"]["finished"] == len(games)


def test_an_invite_names_its_league_to_anyone_holding_it() -> None:
    owner = make_player("owner")
    league = create(owner, "Night owls")
    anonymous = APIClient()

    body = anonymous.get(f"/api/v1/leagues/invites/{league['invite_code']}/").json()

    assert body == {"name": "Night owls", "owner": "owner", "member_count": 1, "full": False}
    wrong = anonymous.get("/api/v1/leagues/invites/not-a-code/")
    assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "not_found"
    # A replaced code names nothing any more.
    client_for(owner).post(f"/api/v1/leagues/{league['id']}/invite/")
    assert anonymous.get(f"/api/v1/leagues/invites/{league['invite_code']}/").status_code == 404
