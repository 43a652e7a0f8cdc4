"""A race played through the attempts API: the start signal, the live counts, the end, and
what becomes public only when the race is over for every racer."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
import time_machine
from django.db import connections
from django.test import Client

from games import engine
from games.models import Attempt, Deal
from rooms.errors import RoomStartedError
from rooms.models import Room
from rooms.services import room_start, rooms_tidy
from tests.rooms.conftest import API, post, racers, started_room
from tests.threads_at_once import run_in_threads

pytestmark = pytest.mark.django_db(transaction=True)


def attempt_of(client: Client, code: str) -> int:
    """The client's attempt in the room (its seat, as the room's API shows it)."""
    return int(client.get(f"{API}/rooms/{code}/").json()["my_seat"]["attempt_id"])


def play(client: Client, attempt_id: int, actions: list[str], offset: int = 0) -> Any:
    return post(client, f"attempts/{attempt_id}/actions/", {"offset": offset, "actions": actions})


def test_no_action_before_the_start_signal_then_every_clock_starts_at_the_same_instant(
    practice_deals: list[Deal], after_the_start: Any
) -> None:
    (_, host), (_, guest) = racers("host", "guest")
    room = started_room([host, guest])
    mine = attempt_of(host, room["code"])
    deal = Room.objects.get(code=room["code"]).deal
    assert deal is not None
    first = list(deal.solution or [])[:1]
    early = play(host, mine, first)
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_started"
    assert Attempt.objects.get(pk=mine).log == []
    after_the_start(room["code"], 1.0)
    answer = play(host, mine, first)
    assert answer.status_code == 200, answer.content
    assert 0.9 <= answer.json()["elapsed_seconds"] < 5
    hint = Client()
    hint.force_login(Attempt.objects.get(pk=mine).player)
    refused = hint.get(f"{API}/attempts/{mine}/hint/")
    assert refused.status_code == 403 and "race" in refused.json()["error"]["message"]


def test_the_race_ends_when_all_have_finished_and_only_then_is_anything_revealed(
    practice_deals: list[Deal], after_the_start: Any
) -> None:
    (_, winner), (_, loser) = racers("winner", "loser")
    room = started_room([winner, loser])
    code = room["code"]
    won_id = attempt_of(winner, code)
    lost_id = attempt_of(loser, code)
    deal = Room.objects.get(code=code).deal
    assert deal is not None
    solution = list(deal.solution or [])
    after_the_start(code, 0.5)
    for offset in range(0, len(solution), 50):
        answer = play(winner, won_id, solution[offset : offset + 50], offset)
        assert answer.status_code == 200, answer.content
    assert answer.json()["won"]
    # One racer finished, the other still races: nothing of the deal is public yet.
    detail = winner.get(f"{API}/attempts/{won_id}/").json()
    assert detail["over"] and detail["deal_revealed"] is False
    assert None in detail["start_state"]["stock"]
    replay = winner.get(f"{API}/attempts/{won_id}/replay/?step=0").json()
    assert replay["cards_revealed"] is False
    for path in ("reveal/", "solution/?step=1", "racers/winner/replay/?step=1"):
        refused = winner.get(f"{API}/rooms/{code}/{path}")
        assert refused.status_code == 403, path
        assert refused.json()["error"]["code"] == "race_not_over"
    assert winner.get(f"{API}/rooms/{code}/").json()["status"] == "racing"

    resigned = post(loser, f"attempts/{lost_id}/resign/")
    assert resigned.status_code == 200
    over = winner.get(f"{API}/rooms/{code}/").json()
    assert over["status"] == "finished"
    assert [(r["place"], r["username"], r["won"]) for r in over["results"]] == [
        (1, "winner", True),
        (2, "loser", False),
    ]
    assert over["results"][0]["score_parts"]["win_bonus"] == 50
    reveal = Client().get(f"{API}/rooms/{code}/reveal/").json()
    assert reveal["solution"] == solution
    assert None not in reveal["start_state"]["stock"]
    assert {r["username"]: len(r["log"]) for r in reveal["racers"]} == {
        "winner": len(solution),
        "loser": 0,
    }
    step = Client().get(f"{API}/rooms/{code}/racers/winner/replay/?step=3").json()
    assert step["cards_revealed"] is True and step["action"] == solution[2]
    assert Client().get(f"{API}/rooms/{code}/solution/?step=1").json()["action"] == solution[0]
    assert loser.get(f"{API}/attempts/{lost_id}/").json()["deal_revealed"] is True
    # Actions after the race ended: refused clearly, nothing stored.
    late = play(loser, lost_id, solution[:1])
    assert late.status_code == 409 and late.json()["error"]["code"] == "attempt_over"
    assert Attempt.objects.get(pk=lost_id).log == []


def test_the_time_limit_resigns_those_still_playing(
    practice_deals: list[Deal], after_the_start: Any
) -> None:
    (_, fast), (_, gone) = racers("fast", "gone")
    room = started_room([fast, gone], time_limit_minutes=5)
    code = room["code"]
    mine = attempt_of(fast, code)
    deal = Room.objects.get(code=code).deal
    assert deal is not None
    after_the_start(code, 1)
    assert play(fast, mine, list(deal.solution or [])[:3]).status_code == 200
    after_the_start(code, 5 * 60 + 1)
    late = play(fast, mine, list(deal.solution or [])[3:4], 3)
    assert late.status_code == 409
    assert "time limit" in late.json()["error"]["message"]
    assert Attempt.objects.get(pk=mine).action_count == 3
    assert rooms_tidy()["ended"] == 1  # the other racer never came back
    finished = Client().get(f"{API}/rooms/{code}/").json()
    assert finished["status"] == "finished"
    assert [r["username"] for r in finished["results"]] == ["fast", "gone"]
    assert all(r["end_reason"] == "resigned" for r in finished["results"])


def test_a_room_started_twice_at_once_starts_once(practice_deals: list[Deal]) -> None:
    (host_player, host), (_, guest) = racers("host", "guest")
    code = post(host, "rooms/", {"variant": "spider1", "seats": 2, "time_limit_minutes": 5})
    code = code.json()["code"]
    post(guest, f"rooms/{code}/join/")
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def start() -> None:
        barrier.wait()
        try:
            room_start(code=code, player=host_player)
            outcomes.append("started")
        except RoomStartedError:
            outcomes.append("refused")
        finally:
            connections.close_all()

    run_in_threads(start, [()] * 2)
    assert sorted(outcomes) == ["refused", "started"]
    assert Attempt.objects.count() == 2
    assert Room.objects.get(code=code).status == "racing"


def test_the_beat_closes_a_room_left_empty(practice_deals: list[Deal]) -> None:
    (_, host), (_, guest) = racers("host", "guest")
    room = post(host, "rooms/", {"variant": "spider1", "seats": 2, "time_limit_minutes": 5})
    code = room.json()["code"]
    post(host, f"rooms/{code}/leave/")
    waiting = started_room([guest, racers("third")[0][1]])
    assert rooms_tidy() == {"closed": 1, "ended": 0}
    assert Room.objects.get(code=code).status == "closed"
    assert Room.objects.get(code=waiting["code"]).status == "racing"
    assert Client().get(f"{API}/rooms/").json() == []
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=6), tick=False):
        assert rooms_tidy() == {"closed": 0, "ended": 1}


def test_a_racer_who_played_on_places_above_one_who_gave_up_at_once(
    practice_deals: list[Deal], after_the_start: Any
) -> None:
    """docs/rules.md's ranking in a race's results: progress before score."""
    (_, quitter), (_, player) = racers("quitter", "player")
    room = started_room([quitter, player])
    code = room["code"]
    deal = Room.objects.get(code=code).deal
    assert deal is not None
    solution = list(deal.solution or [])
    after_the_start(code, 0.5)
    quit_id, play_id = attempt_of(quitter, code), attempt_of(player, code)
    assert play(quitter, quit_id, solution[:1]).status_code == 200
    assert post(quitter, f"attempts/{quit_id}/resign/").status_code == 200
    # The player plays on, but stops before a run goes home (its score stays below).
    board = engine.Board.deal(deal.variant, int(deal.seed))
    played_on = []
    for action in solution[:40]:
        board.push_text(action)
        if board.complete_foundations:
            break
        played_on.append(action)
    assert play(player, play_id, played_on).status_code == 200
    assert post(player, f"attempts/{play_id}/resign/").status_code == 200

    results = player.get(f"{API}/rooms/{code}/").json()["results"]

    by_name = {row["username"]: row for row in results}
    assert by_name["quitter"]["score"] > by_name["player"]["score"]
    assert by_name["player"]["cards_turned_up"] > by_name["quitter"]["cards_turned_up"]
    assert [(row["place"], row["username"]) for row in results] == [(1, "player"), (2, "quitter")]
