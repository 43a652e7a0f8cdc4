"""A racer learns nothing of the race's deal that it did not turn up itself until the race
is over for every racer: not from the room's WebSocket (progress counts only), not from any
read of the room or of the attempts, and not because its own attempt ended while the other
racer still plays (resigning at once and reading everything is the obvious way to cheat
with a second account). Once the race is over, everything is public at once."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from config.asgi import application
from games.models import Attempt, Deal
from rooms.models import Room
from tests.games.test_fair_play import Reached, assert_nothing_hidden, cards_seen, log_lines
from tests.rooms.conftest import API, post, racers, started_room

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")
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
    communicator = WebsocketCommunicator(
        application,
        f"/ws/rooms/{code}/",
        headers=[ORIGIN, (b"cookie", f"sessionid={cookie}".encode())],
    )
    connected, _ = await communicator.connect()
    assert connected
    frames = [await communicator.receive_from(timeout=5)]
    await database_sync_to_async(play)()
    for _ in range(40):
        if await communicator.receive_nothing(timeout=0.05, interval=0.01):
            continue
        frames.append(await communicator.receive_from())
    await communicator.disconnect()
    await asyncio.sleep(0.1)
    await database_sync_to_async(connections.close_all)()
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
