"""The live board of one challenge: ``ws/challenges/<challenge_id>/``.

Only the server sends. On connect the watcher gets a ``snapshot`` (the top of the board,
the counts of players playing and finished, everyone's live progress, and the watcher's
own row when signed in); then ``board`` (new ranks, at most one per board window, and at
once after a void, naming the voided attempt) and ``progress`` (a player completed a run,
dealt, or finished); and ``day_closed`` once the day's close has run, for every challenge
of the day that ended (even one whose games had all ended already: nothing but the fact and
the challenge's id). The client may only send
``{"type": "ping"}`` (answered with ``{"type": "pong"}``).

Close codes:
    4400  the client sent anything but a ping (not JSON, binary, another type)
    4404  no such challenge
    4503  live updates unavailable (the channel layer could not be reached); retry later

A frame longer than a ping could be is refused unread; a channel layer that fails while a
watcher is connected (Redis gone) closes that watcher with 4503 and one warning line, not
an ASGI traceback.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from core.live import Watcher, register_consumer_loop
from leaderboards import live
from leaderboards.metrics import WEBSOCKETS_OPEN, WEBSOCKETS_OPENED

log = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404
CLOSE_UNAVAILABLE = 4503
# A signed-in watcher outside the top has its own rank re-read at most this often.
OWN_RANK_REFRESH_SECONDS = 5.0


class ChallengeConsumer(Watcher, AsyncJsonWebsocketConsumer):
    challenge_id: int
    group_name: str
    player_id: int | None
    username: str | None
    outage_logged = False

    counted_open = False  # in WEBSOCKETS_OPEN until the consumer ends

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.counted_open:  # the socket closes when the consumer ends, however
                WEBSOCKETS_OPEN.dec()

    def log_unavailable(self, error: BaseException) -> None:
        if not self.outage_logged:
            self.outage_logged = True
            log.warning(
                "watcher of challenge %s closed 4503, live updates unavailable: %r",
                self.scope.get("url_route", {}).get("kwargs", {}).get("challenge_id"),
                error,
            )

    async def connect(self) -> None:
        self.challenge_id = int(self.scope["url_route"]["kwargs"]["challenge_id"])
        self.group_name = live.group_name(self.challenge_id)
        user = self.scope.get("user")
        signed_in = user is not None and user.is_authenticated
        self.player_id = user.pk if signed_in else None
        self.username = user.get_username() if signed_in else None
        self.own_checked_at = 0.0
        self.own: dict[str, Any] | None = None
        register_consumer_loop()
        await self.accept()
        self.counted_open = True
        WEBSOCKETS_OPEN.inc()
        WEBSOCKETS_OPENED.inc()
        if not await database_sync_to_async(self.may_watch)():
            await self.close(code=CLOSE_NOT_FOUND)
            return
        try:
            # Join before reading, so that nothing committed after the snapshot is missed.
            await self.join_groups(self.group_names())
        except Exception as error:
            self.log_unavailable(error)
            await self.close(code=CLOSE_UNAVAILABLE)
            raise StopConsumer from None  # done: there is nothing to serve
        snapshot = await database_sync_to_async(self.read_snapshot)()
        if snapshot is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.own = snapshot["me"]
        self.own_checked_at = time.monotonic()
        await self.send_json(snapshot)

    # --- what subclasses (a league's board) change ---

    def may_watch(self) -> bool:
        """Whether this watcher may see this board at all (else 4404, as for no board)."""
        return True

    def group_names(self) -> list[str]:
        return [self.group_name]

    def read_snapshot(self) -> dict[str, Any] | None:
        return live.snapshot_payload(self.challenge_id, self.player_id)

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    # --- group events, named after their type ---

    async def board_update(self, event: dict[str, Any]) -> None:
        if self.player_id is None:
            await self.send(text_data=event["text"])
            return
        payload = json.loads(event["text"])
        voided = payload.get("voided") or {}
        if self.own and voided.get("attempt_id") == self.own["attempt_id"]:
            self.own_checked_at = 0.0  # our own attempt left the board: re-read at once
        await self.send_json({**payload, "me": await self._own_row(payload["top"])})

    async def progress_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def day_closed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def _own_row(self, top: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The watcher's own row: from the pushed top if there, else re-read now and then."""
        for row in top:
            if row["username"] == self.username:
                self.own = row
                return row
        now = time.monotonic()
        if now - self.own_checked_at >= OWN_RANK_REFRESH_SECONDS:
            self.own_checked_at = now
            self.own = await database_sync_to_async(live.own_row)(self.challenge_id, self.player_id)
        return self.own
