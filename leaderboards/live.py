"""Live pushes to the watchers of a challenge, after the commit, coalesced, never raising.

The games signals arrive after the commit (in the thread that committed: a request, a
Celery task, the admin). Nothing here runs in that thread beyond handing work over to
``core.broadcast``, the one way of sending: the messages are built off the loop and sent
on the broadcasting loop, so a slow or absent Redis never slows an accepted action, and
every failure is logged, not raised.

Coalescing (board pushes): one board per challenge per window (``BOARD_WINDOW_SECONDS``).
The first finish of a window claims it (an atomic add in the shared cache: Redis across
processes, this process's memory in the embedded run) and schedules a flush at the
window's end; later finishes in the window find it claimed and do nothing. The flush
first releases the claim and only then reads the board, so a finish committed before the
read is in it and one committed after can claim the next window: no finish is left out of
the last push. The board is computed once per flush and sent to the group, not once per
watcher.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.layers import get_channel_layer
from django.core.cache import cache

from core.broadcast import in_worker_thread, send, submit
from games.models import Attempt
from games.selectors import visible_challenge
from leaderboards import selectors
from leaderboards.metrics import BOARDS_PUSHED

log = logging.getLogger(__name__)

BOARD_WINDOW_SECONDS = 0.25
# Safety expiry of a claimed window, should the process that claimed it die before flushing.
CLAIM_EXPIRY_SECONDS = 5
LIVE_TOP = 50
LIVE_PLAYING = 100


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


# --- the broadcaster ---------------------------------------------------------------


class Broadcaster:
    """What the games signals push; every method returns at once and never raises."""

    def __init__(self) -> None:
        self._claimed: set[int] = set()  # windows claimed in this process (cache down)

    def board_changed(self, challenge_id: int) -> None:
        submit(lambda: self._claim_and_schedule(challenge_id))

    def progressed(self, attempt_id: int, attempt: Attempt | None = None) -> None:
        """Push a player's progress: from ``attempt`` as committed when its player is
        loaded (no query on the hot path of the play API), else read back."""
        if attempt is not None and Attempt.player.is_cached(attempt):
            found = _progress_message(selectors.progress_of(attempt))
            if found is not None:
                submit(lambda: send(group_name(found[0]), "progress.update", found[1]))
            return
        submit(lambda: self._send_progress(attempt_id))

    def voided(self, challenge_id: int, attempt_id: int) -> None:
        submit(lambda: self._send_voided(challenge_id, attempt_id))

    # --- progress and voids: sent as they come ---

    async def _send_progress(self, attempt_id: int) -> None:
        found = await in_worker_thread(_progress_payload, attempt_id)
        if found is not None:
            await send(group_name(found[0]), "progress.update", found[1])

    async def _send_voided(self, challenge_id: int, attempt_id: int) -> None:
        payload = await in_worker_thread(_voided_payload, challenge_id, attempt_id)
        await send(group_name(challenge_id), "board.update", payload)

    # --- boards: coalesced ---

    async def _claim_and_schedule(self, challenge_id: int) -> None:
        if await self._claim(challenge_id):
            asyncio.get_running_loop().call_later(
                BOARD_WINDOW_SECONDS, submit, lambda: self._flush(challenge_id)
            )

    async def _flush(self, challenge_id: int) -> None:
        await self._release(challenge_id)
        payload = await in_worker_thread(board_payload, challenge_id)
        await send(group_name(challenge_id), "board.update", payload)
        BOARDS_PUSHED.inc()

    async def _claim(self, challenge_id: int) -> bool:
        """Claim the challenge's coalescing window: an atomic add in the shared cache (in a
        worker thread: Django's ``aadd`` would queue behind the consumers' database reads on
        the one thread-sensitive executor)."""
        try:
            key = _claim_key(challenge_id)
            return bool(await in_worker_thread(cache.add, key, 1, CLAIM_EXPIRY_SECONDS))
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
            await in_worker_thread(cache.delete, _claim_key(challenge_id))
        except Exception as error:
            log.warning("board window release in the cache failed: %r", error)


def _claim_key(challenge_id: int) -> str:
    # The cache's KEY_PREFIX keeps deployments apart; the layer's prefix, test workers.
    prefix = getattr(get_channel_layer(), "prefix", "asgi")
    return f"{prefix}:leaderboards:board-window:{challenge_id}"


broadcaster = Broadcaster()
