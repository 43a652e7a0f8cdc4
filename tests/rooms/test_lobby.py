"""Opening, joining, leaving, readying and starting a room, and every bad input: a clear
error in the API's shape and nothing stored."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games.models import Attempt, Deal
from rooms.models import Room, Seat
from tests.factories import make_player
from tests.rooms.conftest import API, countdown_ok, open_room, post, racers, signed_in

pytestmark = pytest.mark.django_db


def error_of(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["code"]


def test_a_public_room_is_listed_and_a_private_one_is_reached_by_its_link_only() -> None:
    (_, host), (_, guest) = racers("host", "guest")
    public = open_room(host, seats=4, time_limit_minutes=10)
    private = open_room(host, public=False)
    listed = Client().get(f"{API}/rooms/").json()
    assert [row["code"] for row in listed] == [public["code"]]
    assert listed[0] == {**listed[0], "host": "host", "seats": 4, "taken": 1, "variant": "spider1"}
    joined = post(guest, f"rooms/{private['code']}/join/").json()
    assert [racer["username"] for racer in joined["racers"]] == ["host", "guest"]
    assert joined["my_seat"] == {"ready": False, "attempt_id": None}
    assert error_of(Client().get(f"{API}/rooms/nosuchroom/")) == (404, "not_found")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": 1}, "seats"),
        ({"seats": 9}, "seats"),
        ({"time_limit_minutes": 4}, "time_limit_minutes"),
        ({"time_limit_minutes": 61}, "time_limit_minutes"),
        ({"variant": "klondike"}, "variant"),
        ({"seats": "two"}, "seats"),
        # JSON integers and booleans only (docs/api.md), not their spellings in text.
        ({"seats": "3"}, "seats"),
        ({"seats": 2.5}, "seats"),
        ({"time_limit_minutes": "10"}, "time_limit_minutes"),
        ({"public": "yes"}, "public"),
        ({"public": 0}, "public"),
    ],
)
def test_a_room_with_bad_settings_is_refused_naming_the_field(
    body: dict[str, Any], field: str
) -> None:
    client = signed_in(make_player())
    full = {"variant": "spider1", "seats": 2, "time_limit_minutes": 5, **body}
    answer = post(client, "rooms/", full)
    assert answer.status_code == 400
    assert field in answer.json()["error"]["details"]
    assert not Room.objects.exists()


def test_a_room_of_a_variant_whose_practice_pool_is_not_kept_is_refused(settings: Any) -> None:
    """Its race could never be dealt (a race's deal comes from the practice pool)."""
    settings.PRACTICE_VARIANTS = ["astrocyte"]
    answer = post(
        signed_in(make_player()),
        "rooms/",
        {"variant": "spider1", "seats": 2, "time_limit_minutes": 5},
    )
    assert answer.status_code == 400 and "variant" in answer.json()["error"]["details"]
    assert not Room.objects.exists()


def test_opening_a_room_needs_an_account() -> None:
    answer = post(Client(), "rooms/", {"variant": "spider1", "seats": 2, "time_limit_minutes": 5})
    assert answer.status_code in (401, 403)
    assert not Room.objects.exists()


def test_joining_a_full_room_is_refused_and_joining_twice_changes_nothing() -> None:
    (_, host), (_, guest), (_, late) = racers("host", "guest", "late")
    room = open_room(host, seats=2)
    assert post(guest, f"rooms/{room['code']}/join/").status_code == 200
    assert post(guest, f"rooms/{room['code']}/join/").status_code == 200
    assert error_of(post(late, f"rooms/{room['code']}/join/")) == (409, "room_full")
    assert Seat.objects.count() == 2


def test_readying_twice_and_starting_a_room_of_one_are_refused(
    practice_deals: list[Deal],
) -> None:
    (_, host), (_, guest) = racers("host", "guest")
    room = open_room(host, seats=3)
    code = room["code"]
    assert error_of(post(host, f"rooms/{code}/start/")) == (409, "too_few_racers")
    assert post(host, f"rooms/{code}/ready/").json()["status"] == "lobby"  # alone: no start
    assert error_of(post(host, f"rooms/{code}/ready/")) == (409, "already_ready")
    assert error_of(post(guest, f"rooms/{code}/ready/")) == (403, "not_seated")
    post(guest, f"rooms/{code}/join/")
    assert error_of(post(guest, f"rooms/{code}/start/")) == (403, "not_host")
    assert not Attempt.objects.exists()
    assert Room.objects.get(code=code).status == "lobby"


def test_when_every_seat_present_is_ready_the_race_counts_down_on_the_server_clock(
    practice_deals: list[Deal],
) -> None:
    (host_player, host), (guest_player, guest), (_, late) = racers("host", "guest", "late")
    room = open_room(host, seats=3)
    code = room["code"]
    post(guest, f"rooms/{code}/join/")
    post(host, f"rooms/{code}/ready/")
    started = post(guest, f"rooms/{code}/ready/").json()
    assert started["status"] == "racing" and countdown_ok(started)
    attempts = list(Attempt.objects.order_by("player_id"))
    assert [a.player_id for a in attempts] == sorted([host_player.pk, guest_player.pk])
    assert {a.started_at for a in attempts} == {Room.objects.get(code=code).starts_at}
    assert len({a.deal_id for a in attempts}) == 1
    assert all(a.kind == "practice" and a.cards_sealed for a in attempts)
    assert started["my_seat"]["attempt_id"] in {a.pk for a in attempts}
    assert [racer["progress"]["action_count"] for racer in started["racers"]] == [0, 0]
    # The room takes no one else and no more changes.
    assert error_of(post(late, f"rooms/{code}/join/")) == (409, "room_started")
    assert error_of(post(host, f"rooms/{code}/start/")) == (409, "room_started")
    assert error_of(post(guest, f"rooms/{code}/leave/")) == (409, "room_started")
    assert Attempt.objects.count() == 2 and Seat.objects.count() == 2


def test_the_deal_is_one_none_of_the_racers_has_played(practice_deals: list[Deal]) -> None:
    (host_player, host), (_, guest) = racers("host", "guest")
    played = practice_deals[0]
    Attempt.objects.create(
        player=host_player, deal=played, kind="practice", started_at=played.created_at
    )
    for _ in range(3):
        started = post(host, "rooms/", {"variant": "spider1", "seats": 2, "time_limit_minutes": 5})
        code = started.json()["code"]
        post(guest, f"rooms/{code}/join/")
        assert post(host, f"rooms/{code}/start/").status_code == 200
        assert Room.objects.get(code=code).deal == practice_deals[1]
        Seat.objects.filter(room__code=code).delete()
        Attempt.objects.filter(deal=practice_deals[1]).delete()
    # Once every deal was played by one of them: a clear 503, and the room still waits.
    Attempt.objects.create(
        player=host_player, deal=practice_deals[1], kind="practice", started_at=played.created_at
    )
    room = open_room(host)
    post(guest, f"rooms/{room['code']}/join/")
    answer = post(host, f"rooms/{room['code']}/start/")
    assert error_of(answer) == (503, "no_practice_deal")
    assert Room.objects.get(code=room["code"]).status == "lobby"
    assert not Attempt.objects.filter(play_until__isnull=False).exists()


def test_a_host_who_leaves_hands_the_room_on_and_the_last_to_leave_empties_it() -> None:
    (_, host), (_, guest) = racers("host", "guest")
    room = open_room(host, seats=3)
    code = room["code"]
    post(guest, f"rooms/{code}/join/")
    assert post(host, f"rooms/{code}/leave/").json()["host"] == "guest"
    assert error_of(post(host, f"rooms/{code}/leave/")) == (403, "not_seated")
    post(guest, f"rooms/{code}/leave/")
    assert Room.objects.get(code=code).emptied_at is not None
