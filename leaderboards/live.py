"""Live pushes to the watchers of a challenge, after the commit, coalesced, never raising.

The games signals arrive after the commit (in the thread that committed: a request, a
Celery task, the admin). Nothing here runs in that thread beyond handing work over:
the messages are built and sent on a broadcasting event loop, so a slow or absent Redis
never slows an accepted action, and every failure is logged, not raised.

Which loop: with the Redis channel layer, a daemon thread of this process with its own
event loop (any process may broadcast: web, Celery worker, admin). With the in-memory
layer (the embedded single-process set-up), the loop the WebSocket consumers run on,
since an in-memory layer only reaches consumers of its own loop; until a consumer has
connected in this process nobody is listening, and nothing is sent.

Coalescing (board pushes): one board per challenge per window (``BOARD_WINDOW_SECONDS``).
The first finish of a window claims it (Redis ``SET NX PX`` across processes, a set in
this process without Redis) and schedules a flush at the window's end; later finishes in
the window find it claimed and do nothing. The flush first releases the claim and only
then reads the board, so a finish committed before the read is in it and one committed
after can claim the next window: no finish is left out of the last push. The board is
computed once per flush and sent to the group, not once per watcher.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.core.cache import cache
from django.db import close_old_connections, connection

from games.models import Attempt
from games.selectors import visible_challenge
from leaderboards import selectors
from leaderboards.metrics import BOARDS_PUSHED

log = logging.getLogger(__name__)

BOARD_WINDOW_SECONDS = 0.25
# Safety expiry of a claimed window, should the process that claimed it die before flushing.
CLAIM_EXPIRY_SECONDS = 5
SEND_TIMEOUT_SECONDS = 5.0
LIVE_TOP = 50
LIVE_PLAYING = 100

T = TypeVar("T")


def group_name(challenge_id: int) -> str:
    return f"challenge_{challenge_id}"


# --- what is sent (plain dicts, built from the selectors; never a card) -------------


def board_payload(challenge_id: int, voided: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "board",
        "challenge_id": challenge_id,
        "top": [row.as_json() for row in selectors.leaderboard_for_day(challenge_id, LIVE_TOP)],
        "counts": selectors.players_counts(challenge_id),
        "voided": voided,
    }


def snapshot_payload(challenge_id: int, player_id: int | None) -> dict[str, Any] | None:
    """What a watcher gets on connect; None when the challenge does not exist, or not yet
    (its day has not begun)."""
    challenge = visible_challenge(challenge_id)
    if challenge is None:
        return None
    board = board_payload(challenge_id)
    return {
        "type": "snapshot",
        "challenge": {
            "id": challenge.pk,
            "date": challenge.date.isoformat(),
            "variant": challenge.variant,
        },
        "top": board["top"],
        "counts": board["counts"],
        "playing": selectors.live_progress(challenge_id, LIVE_PLAYING),
        "me": own_row(challenge_id, player_id),
    }


def own_row(challenge_id: int, player_id: int | None) -> dict[str, Any] | None:
    if player_id is None:
        return None
    row = selectors.player_rank(challenge_id, player_id)
    return row.as_json() if row else None


def _progress_message(
    found: tuple[int | None, dict[str, Any]] | None,
) -> tuple[int, dict[str, Any]] | None:
    """(challenge id, ``progress`` message) of a selector's progress row, None off a board."""
    challenge_id, row = found if found is not None else (None, None)
    if challenge_id is None:
        return None
    return challenge_id, {"type": "progress", "challenge_id": challenge_id, "player": row}


def _progress_payload(attempt_id: int) -> tuple[int, dict[str, Any]] | None:
    return _progress_message(selectors.attempt_progress(attempt_id))


def _voided_payload(challenge_id: int, attempt_id: int) -> dict[str, Any]:
    attempt = Attempt.objects.filter(pk=attempt_id).select_related("player").first()
    username = attempt.player.get_username() if attempt else None
    return board_payload(challenge_id, voided={"attempt_id": attempt_id, "username": username})


async def in_worker_thread(function: Callable[..., T], *args: Any) -> T:
    """Run an ORM read off the loop, on a connection that is closed afterwards."""

    def call() -> T:
        close_old_connections()
        try:
            return function(*args)
        finally:
            connection.close()

    return await sync_to_async(call, thread_sensitive=False)()


# --- the broadcaster ---------------------------------------------------------------


class Broadcaster:
    """Hands pushes to a broadcasting loop; every public method returns at once and never raises."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._own_loop: asyncio.AbstractEventLoop | None = None
        self._consumer_loop: asyncio.AbstractEventLoop | None = None
        self._claimed: set[int] = set()  # windows claimed in this process (no Redis)

    # Called by every consumer on connect (from its loop).
    def register_consumer_loop(self) -> None:
        self._consumer_loop = asyncio.get_running_loop()

    # --- entry points (any thread) ---

    def board_changed(self, challenge_id: int) -> None:
        self._submit(lambda: self._claim_and_schedule(challenge_id))

    def progressed(self, attempt_id: int, attempt: Attempt | None = None) -> None:
        """Push a player's progress: from ``attempt`` as committed when its player is
        loaded (no query on the hot path of the play API), else read back."""
        if attempt is not None and Attempt.player.is_cached(attempt):
            found = _progress_message(selectors.progress_of(attempt))
            if found is not None:
                self._submit(lambda: self._group_send(found[0], "progress.update", found[1]))
            return
        self._submit(lambda: self._send_progress(attempt_id))

    def voided(self, challenge_id: int, attempt_id: int) -> None:
        self._submit(lambda: self._send_voided(challenge_id, attempt_id))

    # --- plumbing ---

    def _layer(self) -> Any:
        return get_channel_layer()

    def _loop_for(self, layer: Any) -> asyncio.AbstractEventLoop | None:
        if isinstance(layer, InMemoryChannelLayer):
            loop = self._consumer_loop
            return loop if loop is not None and not loop.is_closed() else None
        with self._lock:
            if self._own_loop is None or self._own_loop.is_closed():
                self._own_loop = asyncio.new_event_loop()
                threading.Thread(
                    target=self._own_loop.run_forever, name="leaderboards-broadcast", daemon=True
                ).start()
            return self._own_loop

    def _submit(self, make: Callable[[], Coroutine[Any, Any, None]]) -> None:
        try:
            loop = self._loop_for(self._layer())
            if loop is None:
                return
            future = asyncio.run_coroutine_threadsafe(self._guarded(make), loop)
            del future  # the guarded coroutine logs its own failures
        except Exception:
            log.exception("live push not scheduled")

    async def _guarded(self, make: Callable[[], Coroutine[Any, Any, None]]) -> None:
        try:
            await make()
        except Exception:
            log.exception("live push failed")

    async def _group_send(self, challenge_id: int, event_type: str, payload: Any) -> None:
        # Encoded once here, not once per watcher (consumers send the text as it is).
        event = {"type": event_type, "payload": payload, "text": json.dumps(payload)}
        try:
            await asyncio.wait_for(
                self._layer().group_send(group_name(challenge_id), event),
                SEND_TIMEOUT_SECONDS,
            )
        except Exception as error:  # Redis down or slow: the data is safe in PostgreSQL
            log.warning("live push %s to challenge %s lost: %r", event_type, challenge_id, error)

    # --- progress and voids: sent as they come ---

    async def _send_progress(self, attempt_id: int) -> None:
        found = await in_worker_thread(_progress_payload, attempt_id)
        if found is not None:
            await self._group_send(found[0], "progress.update", found[1])

    async def _send_voided(self, challenge_id: int, attempt_id: int) -> None:
        payload = await in_worker_thread(_voided_payload, challenge_id, attempt_id)
        await self._group_send(challenge_id, "board.update", payload)

    # --- boards: coalesced ---

    async def _claim_and_schedule(self, challenge_id: int) -> None:
        if await self._claim(challenge_id):
            asyncio.get_running_loop().call_later(
                BOARD_WINDOW_SECONDS,
                lambda: asyncio.ensure_future(self._guarded(lambda: self._flush(challenge_id))),
            )

    async def _flush(self, challenge_id: int) -> None:
        await self._release(challenge_id)
        payload = await in_worker_thread(board_payload, challenge_id)
        await self._group_send(challenge_id, "board.update", payload)
        BOARDS_PUSHED.inc()

    def _claim_key(self, challenge_id: int) -> str:
        # The layer's prefix keeps deployments (and test workers) sharing a Redis apart.
        prefix = getattr(self._layer(), "prefix", "asgi")
        return f"{prefix}:leaderboards:board-window:{challenge_id}"

    async def _claim(self, challenge_id: int) -> bool:
        """Claim the challenge's coalescing window for this process: an atomic add in the
        shared cache (Redis with workers; this process's memory in the embedded run)."""
        try:
            return bool(await cache.aadd(self._claim_key(challenge_id), 1, CLAIM_EXPIRY_SECONDS))
        except Exception as error:
            # Without Redis nobody else can push either: coalesce in this process.
            log.warning("board window claim in the cache failed: %r", error)
        if challenge_id in self._claimed:
            return False
        self._claimed.add(challenge_id)
        return True

    async def _release(self, challenge_id: int) -> None:
        self._claimed.discard(challenge_id)
        try:
            await cache.adelete(self._claim_key(challenge_id))
        except Exception as error:
            log.warning("board window release in the cache failed: %r", error)


broadcaster = Broadcaster()
