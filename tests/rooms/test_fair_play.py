"""A racer learns nothing of the race's deal that it did not turn up itself until the race
is over for every racer: not from the room's WebSocket (progress counts only), not from any
read of the room or of the attempts, and not because its own attempt ended while the other
racer still plays (resigning at once and reading everything is the obvious way to cheat
with a second account). Once the race is over, everything is public at once."""

from __future__ import annotations

import functools
import json
import logging
import threading
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import connections
from django.test import Client

from games.models import Attempt, Deal
from games.services import practice_deals
from rooms.models import Room, Seat
from tests.factories import verified_deal
from tests.games.fair_play_support import (
    Reached,
    assert_nothing_hidden,
    cards_seen,
    frames_while,
    log_lines,
)
from tests.rooms.conftest import API, PRACTICE_SEEDS, open_room, post, racers, started_room

pytestmark = pytest.mark.django_db(transaction=True)

PLAY_FIRST = 12


def collect_reads(client: Client, reached: Reached, code: str, mine: int, rival: int) -> None:
    for path in (
        f"{API}/rooms/",
        f"{API}/rooms/{code}/",
        f"{API}/rooms/{code}/reveal/",
        f"{API}/rooms/{code}/solution/?step=1",
        f"{API}/rooms/{code}/racers/scout/replay/?step=1",
        f"{API}/rooms/{code}/racers/rival/replay/?step=1",
        f"{API}/attempts/{mine}/",
        f"{API}/attempts/{mine}/hint/",
        f"{API}/attempts/{rival}/",
        f"{API}/attempts/{rival}/replay/?step=1",
        "/rooms/",
        f"/rooms/{code}/",
    ):
        answer = reached.add(path, client.get(path))
        assert answer.status_code < 500, (path, answer.status_code)
    detail = client.get(f"{API}/attempts/{mine}/").json()
    if detail["over"]:
        for step in range(detail["action_count"] + 1):
            path = f"{API}/attempts/{mine}/replay/?step={step}"
            assert reached.add(path, client.get(path)).status_code == 200


async def watch_while(cookie: str, code: str, play: Any) -> list[str]:
    """The room's snapshot, then every push received while ``play`` runs."""
    frames, _ = await frames_while(f"/ws/rooms/{code}/", cookie, play)
    return frames


def test_a_racer_who_resigns_at_once_learns_nothing_while_the_other_still_races(
    practice_deals: list[Deal], after_the_start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    (_, scout), (_, rival) = racers("scout", "rival")
    code = started_room([scout, rival])["code"]
    room = Room.objects.get(code=code)
    deal = room.deal
    assert deal is not None
    solution = list(deal.solution or [])
    mine = Attempt.objects.get(player__username="scout").pk
    theirs = Attempt.objects.get(player__username="rival").pk
    after_the_start(code, 0.2)
    reached = Reached()

    def play() -> None:
        # The rival plays; the scout plays too (and is refused now and then), then resigns.
        for offset in range(0, PLAY_FIRST, 3):
            batch = {"offset": offset, "actions": solution[offset : offset + 3]}
            assert post(rival, f"attempts/{theirs}/actions/", batch).status_code == 200
            answer = post(scout, f"attempts/{mine}/actions/", batch)
            assert reached.add(f"actions {offset}", answer).status_code == 200
        for refused in (["t1-t1"], ["t1-t2:7"], ["undo"] * 300):
            body = {"offset": PLAY_FIRST, "actions": refused}
            answer = post(scout, f"attempts/{mine}/actions/", body)
            assert reached.add(f"refused {refused[:1]}", answer).status_code in (400, 409)
        assert reached.add("resign", post(scout, f"attempts/{mine}/resign/")).status_code == 200

    cookie = scout.cookies["sessionid"].value
    frames = async_to_sync(watch_while)(cookie, code, play)
    reached.texts += [("websocket", frame) for frame in frames]
    collect_reads(scout, reached, code, mine, theirs)

    messages = [json.loads(frame) for frame in frames]
    progress = [m for m in messages if m["type"] == "progress"]
    rival_counts = [m["progress"]["action_count"] for m in progress if m["username"] == "rival"]
    assert rival_counts == [3, 6, 9, 12]  # a push after every accepted batch
    assert progress[-1] == {
        "type": "progress",
        "code": code,
        "username": "scout",
        "progress": {**progress[-1]["progress"], "finished": True, "resigned": True},
    }
    assert Room.objects.get(code=code).status == "racing"
    seen = cards_seen(deal, solution[:PLAY_FIRST])
    assert_nothing_hidden(reached, deal, seen, log_lines(caplog.records))
    own = scout.get(f"{API}/attempts/{mine}/").json()
    assert own["over"] and own["deal_revealed"] is False

    # The rival finishes: the race is over, and everything is public for everyone at once.
    rest = {"offset": PLAY_FIRST, "actions": solution[PLAY_FIRST:]}
    assert post(rival, f"attempts/{theirs}/actions/", rest).json()["won"]
    assert Room.objects.get(code=code).status == "finished"
    assert scout.get(f"{API}/attempts/{mine}/").json()["deal_revealed"] is True
    assert Client().get(f"{API}/rooms/{code}/reveal/").json()["solution"] == solution


def collect_outsider_reads(
    client: Client, reached: Reached, code: str, mine: int, racer_attempts: list[int]
) -> None:
    """Every read an account outside the race can make of it, its racers' attempts and its
    own practice attempt on the same deal (played before the race began)."""
    paths = [
        f"{API}/rooms/",
        f"{API}/rooms/{code}/",
        f"{API}/rooms/{code}/reveal/",
        f"{API}/rooms/{code}/solution/?step=1",
        f"{API}/rooms/{code}/racers/scout/replay/?step=1",
        f"{API}/attempts/{mine}/",
        f"{API}/attempts/{mine}/hint/",
        f"{API}/attempts/{mine}/analysis/",
        f"{API}/attempts/{mine}/replay/?step=0",
        f"{API}/attempts/{mine}/replay/?step=1",
        f"/replay/{mine}/",
        "/practice/",
        "/rooms/",
        f"/rooms/{code}/",
    ]
    for racer in racer_attempts:
        paths += [
            f"{API}/attempts/{racer}/",
            f"{API}/attempts/{racer}/replay/?step=1",
            f"{API}/attempts/{racer}/analysis/",
            f"/replay/{racer}/",
        ]
    for path in paths:
        answer = reached.add(path, client.get(path))
        assert answer.status_code < 500, (path, answer.status_code)
    answer = reached.add("analysis request", post(client, f"attempts/{mine}/analysis/"))
    assert answer.status_code < 500, answer.content


def test_no_one_outside_a_running_race_is_dealt_its_deal_or_shown_it(
    after_the_start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The race's deal is the pool's only spider1 deal. A second account (mallory) that
    played it in practice before the race began, resigned at once and saw it whole, sees
    it no more while the race runs; practice never deals it to anyone; after the race, it
    is an ordinary practice deal again."""
    caplog.set_level(logging.DEBUG)
    deal = verified_deal("spider1", PRACTICE_SEEDS[0], pool=Deal.Pool.PRACTICE)
    (_, mallory), (_, scout), (_, rival) = racers("mallory", "scout", "rival")
    before = post(mallory, "practice/start/", {"variant": "spider1"})
    assert before.status_code == 201, before.content
    mine = before.json()["id"]
    assert post(mallory, f"attempts/{mine}/resign/").status_code == 200
    assert mallory.get(f"{API}/attempts/{mine}/").json()["deal_revealed"] is True

    code = started_room([scout, rival])["code"]
    assert Room.objects.get(code=code).deal == deal
    racer_attempts = list(Attempt.objects.filter(cards_sealed=True).values_list("pk", flat=True))
    after_the_start(code, 0.2)
    reached = Reached()
    for body in ({"variant": "spider1"}, {}, {"variant": "spider1"}, {}):
        answer = reached.add(f"practice start {body}", post(mallory, "practice/start/", body))
        assert answer.status_code == 503, answer.content
        assert answer.json()["error"]["code"] == "no_practice_deal"
    assert Attempt.objects.filter(deal=deal).count() == 3  # mallory's old one, the racers'
    collect_outsider_reads(mallory, reached, code, mine, racer_attempts)

    assert mallory.get(f"{API}/attempts/{mine}/").json()["deal_revealed"] is False
    seen = cards_seen(deal, [])
    assert_nothing_hidden(reached, deal, seen, log_lines(caplog.records))

    # Both racers resign: the race is over, the deal is public and dealt in practice again.
    for client, attempt_id in zip((scout, rival), sorted(racer_attempts), strict=True):
        assert post(client, f"attempts/{attempt_id}/resign/").status_code == 200
    assert Room.objects.get(code=code).status == "finished"
    assert mallory.get(f"{API}/attempts/{mine}/").json()["deal_revealed"] is True
    again = post(mallory, "practice/start/", {"variant": "spider1"})
    assert again.status_code == 201 and again.json()["deal_revealed"] is False


def test_a_race_never_takes_a_deal_someone_has_open_in_practice() -> None:
    """An open practice attempt would let its player read the race's cards as they turn
    them (and whole once it ends): the race waits for another deal."""
    verified_deal("spider1", PRACTICE_SEEDS[0], pool=Deal.Pool.PRACTICE)
    (_, mallory), (_, scout), (_, rival) = racers("mallory", "scout", "rival")
    assert post(mallory, "practice/start/", {"variant": "spider1"}).status_code == 201
    room = open_room(scout)
    assert post(rival, f"rooms/{room['code']}/join/").status_code == 200
    answer = post(scout, f"rooms/{room['code']}/start/")
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "no_practice_deal"
    assert Room.objects.get(code=room["code"]).status == "lobby"
    assert not Attempt.objects.filter(cards_sealed=True).exists()


def _in_thread(work: Any) -> Any:
    """``work()`` on a thread of its own (its own database connection, closed after)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.postgres
@pytest.mark.parametrize("first_to_pick", ["practice", "race"])
def test_a_practice_start_and_a_race_start_picking_the_same_deal_at_once_do_not_share_it(
    first_to_pick: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each picks the pool's only deal; the other start commits before the first takes the
    deal's lock: the first finds the deal taken (the database says so) and refuses."""
    deal = verified_deal("spider1", PRACTICE_SEEDS[0], pool=Deal.Pool.PRACTICE)
    (_, mallory), (_, scout), (_, rival) = racers("mallory", "scout", "rival")
    room = open_room(scout)
    assert post(rival, f"rooms/{room['code']}/join/").status_code == 200
    practice = functools.partial(post, mallory, "practice/start/", {"variant": "spider1"})
    race = functools.partial(post, scout, f"rooms/{room['code']}/start/")
    first, second = (practice, race) if first_to_pick == "practice" else (race, practice)
    real_lock = practice_deals._locked
    picked = threading.Event()
    others_done = threading.Event()

    def lock_after_the_other(picked_deal: Deal) -> None:
        if not picked.is_set():
            picked.set()
            assert others_done.wait(timeout=30)
        real_lock(picked_deal)

    monkeypatch.setattr(practice_deals, "_locked", lock_after_the_other)
    first_thread, first_answer = _in_thread(first)
    assert picked.wait(timeout=30)
    second_thread, second_answer = _in_thread(second)
    second_thread.join(timeout=30)
    others_done.set()
    first_thread.join(timeout=30)

    assert second_answer["value"].status_code in (200, 201), second_answer["value"].content
    refused = first_answer["value"]
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "no_practice_deal"
    racing = Attempt.objects.filter(deal=deal, cards_sealed=True).count()
    practising = Attempt.objects.filter(deal=deal, cards_sealed=False).count()
    assert (racing, practising) == ((0, 1) if first_to_pick == "race" else (2, 0))


def test_a_deal_taken_by_a_race_is_replaced_in_the_practice_pool(settings: Any) -> None:
    """While the pool's deals race, practice answers "try again soon", and that is true:
    the next preparation counts only the deals free to deal, and tops the pool up."""
    from games.services.dailies import dailies_prepare

    settings.PRACTICE_VARIANTS = ["spider1"]
    verified_deal("spider1", PRACTICE_SEEDS[0], pool=Deal.Pool.PRACTICE)
    (_, mallory), (_, scout), (_, rival) = racers("mallory", "scout", "rival")
    queued: list[int] = []
    dailies_prepare(enqueue=queued.append, days=0, variants=[], practice_size=1)
    assert queued == []  # the pool is full

    started_room([scout, rival])
    refused = post(mallory, "practice/start/", {"variant": "spider1"})
    assert refused.status_code == 503 and "try again soon" in refused.json()["error"]["message"]
    dailies_prepare(enqueue=queued.append, days=0, variants=[], practice_size=1)
    assert len(queued) == 1
    candidate = Deal.objects.get(pk=queued[0])
    assert (candidate.variant, candidate.pool) == ("spider1", Deal.Pool.PRACTICE)


def test_a_race_takes_a_deal_nobody_has_seen_when_there_is_one() -> None:
    """A second account that played a deal in practice knows it whole: a race prefers the
    pool's deals nobody has played."""
    seen, unseen = (
        verified_deal("spider1", seed, pool=Deal.Pool.PRACTICE) for seed in PRACTICE_SEEDS
    )
    (mallory_player, _), (_, scout), (_, rival) = racers("mallory", "scout", "rival")
    Attempt.objects.create(
        player=mallory_player,
        deal=seen,
        kind="practice",
        started_at=seen.created_at,
        ended_at=seen.created_at,
    )
    for _ in range(6):  # (picked at random among both, the seen one would come 63 times in 64)
        code = started_room([scout, rival])["code"]
        assert Room.objects.get(code=code).deal == unseen
        Room.objects.filter(code=code).update(deal=None, status="closed")
        Seat.objects.filter(room__code=code).delete()
        Attempt.objects.filter(deal=unseen).delete()
