"""The live room, ``ws/rooms/<code>/``, and the live list of rooms, ``ws/rooms/``.

Only the server sends. On connect a ``room`` message (the room as ``GET rooms/<code>/``
shows it to everyone: seats, ready marks, status, the start signal and the time limit on
the server clock, each racer's progress); then ``room`` again after every change (a seat
taken or left, a ready mark, the start, the end) and ``progress`` after every accepted
batch of a racer's actions (counts only: cards home, runs completed, deals left, action
count, finished or resigned; never a card). The client may only send
``{"type": "ping"}`` (answered ``{"type": "pong"}``).

The list (``LobbyConsumer``): on connect and after every change to a public room (opened,
a seat taken or left, started, closed) a ``rooms`` message: ``{"type": "rooms", "rooms":
[...]}``, the public rooms taking seats as ``GET rooms/`` lists them.

Close codes: 4400 anything but a ping; 4404 no such room; 4503 live updates unavailable.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.db import database_sync_to_async

from core.live import Watcher, register_consumer_loop
from rooms import selectors
from rooms.errors import RoomNotFoundError

log = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404
CLOSE_UNAVAILABLE = 4503


def snapshot(code: str) -> dict[str, Any] | None:
    try:
        return selectors.room_public(selectors.room_by_code(code))
    except RoomNotFoundError:
        return None


class RoomConsumer(Watcher):
    code: str
    group_name: str

    async def connect(self) -> None:
        self.code = str(self.scope["url_route"]["kwargs"]["code"])
        self.group_name = selectors.group_name(self.code)
        register_consumer_loop()
        await self.accept()
        room = await database_sync_to_async(snapshot)(self.code)
        if room is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        try:
            # Join before the snapshot is sent, so that nothing committed after it is missed
            # (a push may then repeat what the snapshot says: the client keeps the newest).
            await self.join_groups([self.group_name])
        except Exception as error:
            log.warning("watcher of room %s closed 4503: %r", self.code, error)
            await self.close(code=CLOSE_UNAVAILABLE)
            return
        room = await database_sync_to_async(snapshot)(self.code) or room
        await self.send(text_data=json.dumps(room))

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    # --- group events, named after their type ---

    async def room_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def room_progress(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


class LobbyConsumer(Watcher):
    """The room list's watcher: the public rooms taking seats, then the list again after
    every change to one of them."""

    async def connect(self) -> None:
        register_consumer_loop()
        await self.accept()
        try:
            # Joined before the list is read: no change committed after the read is missed.
            await self.join_groups([selectors.LOBBY_GROUP])
        except Exception as error:
            log.warning("watcher of the room list closed 4503: %r", error)
            await self.close(code=CLOSE_UNAVAILABLE)
            return
        rooms = await database_sync_to_async(selectors.lobby_payload)()
        await self.send(text_data=json.dumps(rooms))

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def rooms_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
