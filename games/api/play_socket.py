"""The play socket: ``ws/attempts/<attempt_id>/play/``, the actions of one attempt over a
WebSocket, the other transport of ``POST attempts/<id>/actions/`` (docs/api.md).

One door, two transports: a message's batch goes through the endpoint's own door
(``games.play.play_actions``: the ``actions`` throttle with the same counter, the same
input check, the same service) and is answered with exactly the HTTP status and body the
endpoint gives. What the connection saves is per-request work done once per socket: the
handshake, the session or token read, the attempt's owner check, and the database
connection, held by the play threads (``games.api.play_threads``) between batches.

Connect (the session cookie of the browser, or ``Authorization: Token <key>`` for API
clients: accounts/websocket_auth.py) and the server sends
``{"type": "ready", "attempt_id": N, "offset": <the stored log's length>}``. Then:

- ``{"type": "actions", "id": <string or integer>, "offset": N, "actions": [...]}`` is
  answered ``{"type": "answer", "id": <the same>, "status": <HTTP status>, "body": ...}``:
  200 and the endpoint's body, or the endpoint's error (400 invalid / invalid_action /
  illegal_action, 409 offset_conflict / attempt_over, 429 throttled, 503 unavailable when
  the database cannot be reached: send the same batch again). Answers come in the order
  the messages were sent. A batch sent again (after a drop, on a new socket or over
  HTTP) at the same offset is a retry: answered as the first time, applied once.
- ``{"type": "ping"}`` is answered ``{"type": "pong"}``.

Close codes (after an ``{"type": "error", "error": {...}}`` message saying why):
    4400  a frame that is not a JSON object, binary, or longer than the largest batch
    4401  not signed in, or the token is unknown or expired (code token_expired)
    4404  no such attempt, or not the signed-in player's (the same, as over HTTP)
    4503  the database cannot be reached at the handshake (code unavailable): connect again

The handshake's read runs on a play thread's held connection, which a PostgreSQL restart
leaves dead: a database error there is read once more on a fresh connection, and a
second one closes the socket 4503, never drops it without a close frame.

Fair play: an answer carries what the HTTP answer carries and no more; nothing here is
logged but the attempt's id and the message's status.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import DatabaseError, connection

from core.api_errors import DomainError, error_body
from core.live import CLOSE_UNAVAILABLE, NO_CHANNEL_LAYER, DirectDispatch
from games.api.play_threads import in_play_thread
from games.metrics import PLAY_SOCKET_ANSWERS, PLAY_SOCKETS_OPEN
from games.play import PlayAnswer, play_actions
from games.play.answers import invalid
from games.play.batch_input import actions_body_budget
from games.selectors import attempt_for_player
from games.services.attempts import PlayCursor

log = logging.getLogger(__name__)

CLOSE_BAD_FRAME = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
MAX_ID_CHARS = 64
# Room for the message's type and id around the largest batch the endpoint reads.
FRAME_OVERHEAD_CHARS = 256


def max_frame_chars() -> int:
    return actions_body_budget() + FRAME_OVERHEAD_CHARS


def _answer(ident: Any, answer: PlayAnswer) -> str:
    PLAY_SOCKET_ANSWERS.labels(str(answer.status)).inc()
    return json.dumps({"type": "answer", "id": ident, "status": answer.status, "body": answer.body})


def _invalid(ident: Any, details: Any) -> str:
    return _answer(ident, invalid(details))


class PlaySocketConsumer(DirectDispatch, AsyncWebsocketConsumer):
    # It joins no group (its answers go to its own client only): no channel of its own in
    # the channel layer, so that its handshake needs no Redis and holds no subscription.
    channel_layer_alias = NO_CHANNEL_LAYER
    attempt_id: int
    user: Any = None
    counted_open = False
    # The attempt and the board after this socket's last batch: the next one is decided on
    # it and written without the row lock while nobody else plays (games.services.attempts).
    cursor: PlayCursor

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.counted_open:
                PLAY_SOCKETS_OPEN.dec()

    async def connect(self) -> None:
        self.attempt_id = int(self.scope["url_route"]["kwargs"]["attempt_id"])
        self.cursor = PlayCursor()
        await self.accept()
        self.counted_open = True
        PLAY_SOCKETS_OPEN.inc()
        auth_error = self.scope.get("auth_error")
        user = self.scope.get("user")
        if auth_error is not None or user is None or not user.is_authenticated:
            code, message = auth_error or (
                "not_authenticated",
                "Sign in (the session) or send Authorization: Token <key> to play.",
            )
            await self._close_with(CLOSE_UNAUTHENTICATED, code, message)
            return
        self.user = user
        try:
            offset = await in_play_thread(self._stored_offset)()
        except DatabaseError as error:
            log.warning("attempt %s: handshake, database unavailable: %r", self.attempt_id, error)
            await self._close_with(
                CLOSE_UNAVAILABLE,
                "unavailable",
                "The database cannot be reached: connect again in a few seconds.",
            )
            return
        if offset is None:
            await self._close_with(CLOSE_NOT_FOUND, "not_found", "No such attempt.")
            return
        await self.send(
            text_data=json.dumps({"type": "ready", "attempt_id": self.attempt_id, "offset": offset})
        )

    def _stored_offset(self) -> int | None:
        """The stored log's length (None: no such attempt of this player), read once more
        on a fresh connection if the held one fails; a second database error is raised."""
        try:
            return self._read_offset()
        except DatabaseError:
            connection.close()  # the held connection may have died (a PostgreSQL restart)
        return self._read_offset()

    def _read_offset(self) -> int | None:
        try:
            return len(attempt_for_player(self.attempt_id, self.user).log)
        except DomainError:
            return None

    async def _close_with(self, close_code: int, code: str, message: str) -> None:
        await self.send(text_data=json.dumps({"type": "error", **error_body(code, message)}))
        await self.close(code=close_code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = self._parsed(text_data)
        if message is None:
            await self._close_with(
                CLOSE_BAD_FRAME,
                "bad_frame",
                "Each frame must be one JSON object in text, at most "
                f"{max_frame_chars()} characters.",
            )
            return
        kind = message.get("type")
        if kind == "ping":
            await self.send(text_data='{"type": "pong"}')
        elif kind == "actions":
            await self.send(text_data=await in_play_thread(self.play)(message))
        else:
            await self.send(
                text_data=_invalid(message.get("id"), {"type": ['Expected "actions" or "ping".']})
            )

    @staticmethod
    def _parsed(text_data: str | None) -> dict[str, Any] | None:
        if text_data is None or len(text_data) > max_frame_chars():
            return None
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            return None
        return message if isinstance(message, dict) else None

    def play(self, message: dict[str, Any]) -> str:
        """One batch, checked and applied as the HTTP endpoint does: the answer's text."""
        ident = message.get("id")
        if not (
            (isinstance(ident, str) and 0 < len(ident) <= MAX_ID_CHARS)
            or (isinstance(ident, int) and not isinstance(ident, bool))
        ):
            return _invalid(
                None, {"id": [f"A string of 1 to {MAX_ID_CHARS} characters or an integer."]}
            )
        batch = {key: message[key] for key in ("offset", "actions") if key in message}
        answer = play_actions(
            attempt_id=self.attempt_id,
            player=self.user,
            read_data=lambda: batch,
            cursor=self.cursor,
            held_connection=True,
        )
        return _answer(ident, answer)
