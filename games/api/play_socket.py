"""The play socket: ``ws/attempts/<attempt_id>/play/``, the actions of one attempt over a
WebSocket, the other transport of ``POST attempts/<id>/actions/`` (docs/api.md).

One path, two transports: a message goes through the same checks (the endpoint's own
input serializer, the ``actions`` throttle with the same counter) and the same service
(``attempt_push_actions``), and is answered with exactly the HTTP status and body the
endpoint would give. What the connection saves is per-request work done once per socket:
the handshake, the session or token read, the attempt's owner check.

Connect (the session cookie of the browser, or ``Authorization: Token <key>`` for API
clients: config/ws_security.py) and the server sends
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

Fair play: an answer carries what the HTTP answer carries and no more; nothing here is
logged but the attempt's id and the message's status.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection, connections
from rest_framework.exceptions import Throttled
from rest_framework.throttling import ScopedRateThrottle

from core.api_errors import DomainError, error_body
from core.consumers import DirectDispatch
from core.throttles import RequestLease, lease_size
from games.api.attempts import (
    AttemptActionsApi,
    actions_body_budget,
    fast_batch,
)
from games.api.rendering import render
from games.metrics import PLAY_SOCKET_ANSWERS, PLAY_SOCKETS_OPEN
from games.selectors import attempt_for_player
from games.services.attempts import PlayCursor, attempt_push_actions

log = logging.getLogger(__name__)

CLOSE_BAD_FRAME = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
MAX_ID_CHARS = 64
THROTTLE_SCOPE = AttemptActionsApi.throttle_scope
# Room for the message's type and id around the largest batch the endpoint reads.
FRAME_OVERHEAD_CHARS = 256

# The sockets' database work runs on a few threads of their own (half of WEB_THREADS, at
# least 2), not on asgiref's one thread-sensitive thread (every consumer's reads queue
# there). Each of them keeps its database connection from one message to the next (the
# per-request checkout and health check of the pool, gone), and gives it back after an
# error; with the HTTP threads that stays under DATABASE_POOL_MAX_SIZE.
_executor: ThreadPoolExecutor | None = None


def socket_threads() -> int:
    return max(2, settings.WEB_THREADS // 2)


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(
            max_workers=socket_threads(), thread_name_prefix="play-socket"
        )
    return _executor


def _with_held_connection(function: Any, *args: Any) -> Any:
    if connection.errors_occurred:  # a failure last time: keep the connection if it works
        if connection.is_usable():
            connection.errors_occurred = False
        else:
            connection.close()
    try:
        return function(*args)
    except DatabaseError:
        connection.close()
        raise


def in_pool(function: Any) -> Any:
    """``function`` run on the socket's threads, on the thread's own database connection."""
    return SyncToAsync(
        functools.partial(_with_held_connection, function),
        thread_sensitive=False,
        executor=_pool(),
    )


def release_connections() -> None:
    """Give back the connection each socket thread holds (tests; a process that stops)."""
    if _executor is None:
        return
    count = _executor._max_workers  # (the pool's own size, whatever the settings say now)
    barrier = threading.Barrier(count)  # one task on each thread, every thread at once

    def release() -> None:
        barrier.wait(timeout=10)
        connections.close_all()

    for future in [_executor.submit(release) for _ in range(count)]:
        future.result()


def max_frame_chars() -> int:
    return actions_body_budget() + FRAME_OVERHEAD_CHARS


def _answer(ident: Any, status: int, body: Any) -> str:
    PLAY_SOCKET_ANSWERS.labels(str(status)).inc()
    return json.dumps({"type": "answer", "id": ident, "status": status, "body": body})


def _refusal(ident: Any, error: DomainError) -> str:
    return _answer(ident, error.http_status, error_body(error.code, error.message, error.details))


def _invalid(ident: Any, details: Any) -> str:
    return _answer(ident, 400, error_body("invalid", "The request is not valid.", details))


def throttle_lease(player_id: int) -> RequestLease | None:
    """The socket's share of the HTTP endpoint's own ``actions`` counter for this player:
    taken a lease at a time (a second's worth of the rate, at least one), None when the
    rate is off."""
    throttle = ScopedRateThrottle()
    throttle.scope = THROTTLE_SCOPE
    limit, duration = throttle.parse_rate(throttle.get_rate())
    if limit is None or duration is None:
        return None
    key = throttle.cache_format % {"scope": THROTTLE_SCOPE, "ident": player_id}
    return RequestLease(key, limit, duration, size=lease_size(limit, duration))


class PlaySocketConsumer(DirectDispatch, AsyncWebsocketConsumer):
    attempt_id: int
    user: Any = None
    counted_open = False
    # The attempt and the board after this socket's last batch: the next one is decided on
    # it and written without the row lock while nobody else plays (games.services.attempts).
    cursor: PlayCursor
    lease: RequestLease | None = None

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
        self.lease = throttle_lease(user.pk)
        offset = await in_pool(self._stored_offset)()
        if offset is None:
            await self._close_with(CLOSE_NOT_FOUND, "not_found", "No such attempt.")
            return
        await self.send(
            text_data=json.dumps({"type": "ready", "attempt_id": self.attempt_id, "offset": offset})
        )

    def _stored_offset(self) -> int | None:
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
            await self.send(text_data=await in_pool(self.play)(message))
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
        wait = None if self.lease is None else self.lease.take(caches["default"], time.time())
        if wait is not None:
            throttled = Throttled(wait)
            body = error_body("throttled", str(throttled.detail), {"wait": wait})
            return _answer(ident, 429, body)
        batch_in = fast_batch(message)
        if batch_in is None:
            data = AttemptActionsApi.InputSerializer(
                data={key: message[key] for key in ("offset", "actions") if key in message}
            )
            if not data.is_valid():
                return _invalid(ident, data.errors)
            batch_in = data.validated_data["offset"], data.validated_data["actions"]
        offset, actions = batch_in
        for tries_left in (1, 0):
            try:
                batch = attempt_push_actions(
                    attempt_id=self.attempt_id,
                    player=self.user,
                    offset=offset,
                    actions=actions,
                    cursor=self.cursor,
                )
                break
            except DomainError as error:
                return _refusal(ident, error)
            except DatabaseError as error:
                # The thread's held connection may have died (a PostgreSQL restart): once
                # more on a fresh one from the pool, which checks it. Safe: a batch stored
                # before the failure is a retry now, answered as the first time.
                connection.close()
                self.cursor.clear()
                if tries_left:
                    continue
                log.warning(
                    "play socket of attempt %s: database unavailable: %r", self.attempt_id, error
                )
                body = error_body(
                    "unavailable", "The database cannot be reached: send the same batch again."
                )
                return _answer(ident, 503, body)
        return _answer(ident, 200, render(AttemptActionsApi.OutputSerializer, batch))
