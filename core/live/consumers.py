"""What every WebSocket consumer of the site shares.

``DirectDispatch``: Channels' ``AsyncConsumer.dispatch`` runs ``close_old_connections``
through ``sync_to_async`` before every handler, that is one hop to the process's single
thread-sensitive executor per message per consumer. A board pushed to the 2,500 watchers
of one process made 2,500 hops, one after another through that one thread, before the
last watcher's frame was written (docs/scaling.md). Our handlers touch the database only
through ``database_sync_to_async``, which closes stale connections itself, so the hop
buys nothing: dispatch calls the handler directly.

``UnknownPathDenier``: the answer to a WebSocket address no route knows: the handshake is
refused (HTTP 403, as for a foreign origin) instead of Channels' router raising (a 500).

``Watcher``: a ``GroupMember`` whose client only watches: the server sends, and the
client may only send ``{"type": "ping"}`` (answered ``{"type": "pong"}``); anything else
closes the socket 4400, and a frame longer than a ping could be is refused unread.

``GroupMember``: the consumer's groups come through ``core.live.group_fanout`` (one
subscription per group and process) instead of a channel of its own per socket. A group
message is appended to the consumer's mailbox; one task at a time sends what it holds, in
order, through the handler named after the message's type. The mailbox holds at most
``MAILBOX_SIZE`` messages: a socket that stops reading loses its oldest ones (a newer
board follows) and costs bounded memory.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.security.websocket import WebsocketDenier

from core.live.eager_start import start_eagerly
from core.live.group_fanout import local_groups
from core.live.losses import count_loss

log = logging.getLogger(__name__)

MAILBOX_SIZE = 100
# No channel of its own (Channels' get_channel_layer answers None for an alias it does not
# know): group messages come through core.live.group_fanout.
NO_CHANNEL_LAYER = "(none: group messages come through core.live.group_fanout)"
CLOSE_BAD_MESSAGE = 4400
CLOSE_UNAVAILABLE = 4503
CLOSE_INTERNAL_ERROR = 1011
# The longest frame a watcher has reason to send ({"type": "ping"} with room to spare).
MAX_PING_CHARS = 256
PONG = json.dumps({"type": "pong"})
# What a socket that went away raises when written to (uvicorn's ClientDisconnected is an
# OSError; Channels' test communicator raises nothing).
GONE = OSError


class DirectDispatch:
    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class UnknownPathDenier(DirectDispatch, WebsocketDenier):
    """Refuses every handshake; needs no channel layer (so it refuses cleanly while Redis is
    away)."""

    channel_layer_alias = NO_CHANNEL_LAYER


class GroupMember(DirectDispatch, AsyncWebsocketConsumer):
    channel_layer_alias = NO_CHANNEL_LAYER

    _joined: tuple[str, ...] = ()
    _mailbox: collections.deque[dict[str, Any]] | None = None
    _sending: asyncio.Task[None] | None = None
    _closing: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.leave_groups()

    async def join_groups(self, groups: list[str]) -> None:
        """Join each group (raises, having joined none, if the layer cannot be reached)."""
        fanout = local_groups()
        try:
            for group in groups:
                await fanout.join(group, self)
                self._joined += (group,)
        except BaseException:
            await self.leave_groups()
            raise

    async def leave_groups(self) -> None:
        joined, self._joined = self._joined, ()
        if self._sending is not None:
            self._sending.cancel()
        for group in joined:
            await local_groups().leave(group, self)

    # --- core.live.group_fanout.Member ---

    def deliver(self, event: dict[str, Any]) -> None:
        if self._mailbox is None:
            self._mailbox = collections.deque(maxlen=MAILBOX_SIZE)
        if len(self._mailbox) == MAILBOX_SIZE:
            count_loss("mailbox_overflow")  # the oldest goes: a newer board follows
        self._mailbox.append(event)
        if self._sending is None:
            # Sent now, in the fan-out's loop turn, unless the socket must wait for room.
            self._sending = start_eagerly(self._send_mailbox())

    def subscription_lost(self, error: BaseException) -> None:
        # Its groups stay in ``_joined``: leaving them on disconnect takes this consumer out
        # of the others (a league watcher has two), and the lost one is gone already.
        self.log_unavailable(error)
        self._closing = asyncio.create_task(self._close_quietly(CLOSE_UNAVAILABLE))

    def log_unavailable(self, error: BaseException) -> None:
        """One warning line: this socket is closed 4503 (live updates unavailable)."""
        log.warning(
            "socket %s closed %s, live updates unavailable: %r",
            self.scope.get("path"),
            CLOSE_UNAVAILABLE,
            error,
        )

    # --- sending ---

    async def _send_mailbox(self) -> None:
        mailbox = self._mailbox
        assert mailbox is not None
        try:
            while mailbox:
                await self.dispatch(mailbox.popleft())
        except GONE:
            mailbox.clear()  # the client left; its disconnect ends the consumer
        except Exception:
            count_loss("socket_failed")
            log.exception("socket %s: a group message failed; closing it", self.scope.get("path"))
            mailbox.clear()
            await self._close_quietly(CLOSE_INTERNAL_ERROR)
        finally:
            self._sending = None

    async def _close_quietly(self, code: int) -> None:
        try:
            await self.close(code=code)
        except Exception as error:  # gone already
            log.debug("close %s not sent: %r", code, error)


class Watcher(GroupMember):
    """A socket that only watches its groups: the client may ping, nothing else."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if is_ping(text_data):
            await self.pinged()
            await self.send(text_data=PONG)
            return
        await self.close(code=CLOSE_BAD_MESSAGE)

    async def pinged(self) -> None:
        """The client pinged: it is still watching."""


def is_ping(text_data: str | None) -> bool:
    """Whether a client's text frame is ``{"type": "ping"}`` and nothing else."""
    if text_data is None or len(text_data) > MAX_PING_CHARS:
        return False
    try:
        return bool(json.loads(text_data) == {"type": "ping"})
    except (ValueError, RecursionError):
        return False
