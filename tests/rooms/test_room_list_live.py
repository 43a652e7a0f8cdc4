"""The room list's socket (``ws/rooms/``): the public rooms taking seats on connect, then the
list again after every committed change to a public room (opened, joined, left, started);
a private room never shows; anything but a ping closes it with 4400."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from config.asgi import application
from games.models import Deal
from tests.rooms.conftest import open_room, post, racers

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://localhost")
db = database_sync_to_async


async def next_list(communicator: WebsocketCommunicator) -> list[tuple[str, int]]:
    message = await communicator.receive_json_from(timeout=5)
    assert message["type"] == "rooms"
    return [(room["host"], room["taken"]) for room in message["rooms"]]


async def test_the_list_follows_public_rooms_and_never_shows_a_private_one(
    practice_deals: list[Deal],
) -> None:
    (_, host), (_, guest) = await db(racers)("host", "guest")
    communicator = WebsocketCommunicator(application, "/ws/rooms/", headers=[ORIGIN])
    connected, _ = await communicator.connect()
    assert connected
    assert await next_list(communicator) == []

    await db(open_room)(host, public=False)
    room: dict[str, Any] = await db(open_room)(host, seats=3)
    # The next list is the public room's: the private one pushed nothing and is not in it.
    assert await next_list(communicator) == [("host", 1)]

    await db(post)(guest, f"rooms/{room['code']}/join/")
    assert await next_list(communicator) == [("host", 2)]
    await db(post)(guest, f"rooms/{room['code']}/leave/")
    assert await next_list(communicator) == [("host", 1)]
    await db(post)(guest, f"rooms/{room['code']}/join/")
    assert await next_list(communicator) == [("host", 2)]
    assert (await db(post)(host, f"rooms/{room['code']}/start/")).status_code == 200
    assert await next_list(communicator) == []

    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong"}
    await communicator.send_to(text_data="hello")
    assert (await communicator.receive_output(timeout=5))["code"] == 4400
    await communicator.wait(timeout=5)
    await db(connections.close_all)()
