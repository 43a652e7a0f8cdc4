"""Live pushes to the watchers of a challenge, after the commit, coalesced, never raising.

The games signals arrive after the commit (in the thread that committed: a request, a
Celery task, the admin). Nothing here runs in that thread beyond handing work over to
``core.live``, the one way of sending: the messages are built off the loop and sent on
the broadcasting loop, so a slow or absent Redis never slows an accepted action, and
every failure is logged, not raised.

Coalescing (board pushes): one board per challenge per window (``BOARD_WINDOW_SECONDS``).
The first finish of a window claims it (an atomic add in the shared cache: Redis across
processes, this process's memory in the embedded run) and schedules a flush at the
window's end; later finishes in the window find it claimed and do nothing. The flush
first releases the claim and only then reads the board, so a finish committed before the
read is in it and one committed after can claim the next window: no finish is left out of
the last push. The board is computed once per flush and sent to the group, not once per
watcher; so are the boards of the challenge's leagues that have watchers
(leaderboards/leagues/live.py), each to its own group.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

from channels.layers import get_channel_layer
from django.core.cache import cache

from core.live import in_worker_thread, send, submit
from games.models import Attempt
from games.selectors import visible_challenge
from leaderboards import progress_buffer, selectors
from leaderboards.leagues.live import league_board_payloads
from leaderboards.metrics import BOARDS_PUSHED

log = logging.getLogger(__name__)

BOARD_WINDOW_SECONDS = 0.25
# Progress rows of a window go out together: a watcher's messages do not grow with the
# number of players (each push costs every watcher's socket a frame).
PROGRESS_WINDOW_SECONDS = 1.0
# A process hands its players' progress rows to the shared buffer together, this often.
PROGRESS_GATHER_SECONDS = 0.05
DRAIN_LATE_SECONDS = 1.0
WINDOW_SECONDS = {"board": BOARD_WINDOW_SECONDS, "progress": PROGRESS_WINDOW_SECONDS}
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
        "challenge": {**selectors.challenge_ref(challenge), "date": challenge.date.isoformat()},
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


def _voided_payload(challenge_id: int, attempt_id: int) -> dict[str, Any]:
    attempt = Attempt.objects.filter(pk=attempt_id).select_related("player").first()
    username = attempt.player.get_username() if attempt else None
    return board_payload(challenge_id, voided={"attempt_id": attempt_id, "username": username})


# --- the broadcaster ---------------------------------------------------------------


class Broadcaster:
    """What the games signals push; every method returns at once and never raises.

    Progress rows are gathered in the process for ``PROGRESS_GATHER_SECONDS`` and handed
    to the shared buffer together, with one claim of the window: one hop off the loop
    and one Redis pipeline for all the rows of the moment, not two of each per action
    (at 500 players dealing in the same second, the price of every action doubled).
    """

    def __init__(self) -> None:
        self._claimed: set[tuple[str, int]] = set()  # windows claimed here (cache down)
        self._lock = threading.Lock()
        self._gathered: dict[int, dict[int, dict[str, Any]]] = {}  # challenge -> attempt -> row
        self._drain_due_since: float | None = None  # a hand-over is scheduled since then

    def board_changed(self, challenge_id: int) -> None:
        submit(lambda: self._open_window("board", challenge_id))

    def progressed(self, attempt_id: int, attempt: Attempt | None = None) -> None:
        """Push a player's progress with the challenge's next progress window: from
        ``attempt`` as committed when its player is loaded (no query on the hot path of the
        play API), else read back."""
        if attempt is not None and Attempt.player.is_cached(attempt):
            self._gather(selectors.progress_of(attempt))
            return
        submit(lambda: self._read_and_keep_progress(attempt_id))

    def voided(self, challenge_id: int, attempt_id: int) -> None:
        submit(lambda: self._send_voided(challenge_id, attempt_id))

    def day_closed(self, challenge_id: int) -> None:
        """Tell the challenge's watchers that its day is over (sent at once, nothing but the
        fact: the day is over for everyone, so what the pages then ask for is public)."""
        payload = {"type": "day_closed", "challenge_id": challenge_id}
        submit(lambda: send(group_name(challenge_id), "day.closed", payload))

    # --- voids: sent at once ---

    async def _send_voided(self, challenge_id: int, attempt_id: int) -> None:
        payload = await in_worker_thread(_voided_payload, challenge_id, attempt_id)
        await send(group_name(challenge_id), "board.update", payload)
        await self._flush_leagues(challenge_id)

    # --- progress: kept for the window ---

    async def _read_and_keep_progress(self, attempt_id: int) -> None:
        self._gather(await in_worker_thread(selectors.attempt_progress, attempt_id))

    def _gather(self, found: tuple[int | None, dict[str, Any]] | None) -> None:
        """Keep the row for the next hand-over (a player's later row replaces it)."""
        challenge_id, row = found if found is not None else (None, None)
        if challenge_id is None or row is None:
            return  # practice, or off the board
        now = time.monotonic()
        with self._lock:
            self._gathered.setdefault(challenge_id, {})[row["attempt_id"]] = row
            since = self._drain_due_since
            # (one scheduled long ago never ran: its loop stopped; schedule another)
            if since is not None and now - since < PROGRESS_GATHER_SECONDS + DRAIN_LATE_SECONDS:
                return
            self._drain_due_since = now
        submit(self._drain_gathered)

    async def _drain_gathered(self) -> None:
        await asyncio.sleep(PROGRESS_GATHER_SECONDS)
        with self._lock:
            gathered, self._gathered = self._gathered, {}
            self._drain_due_since = None
        for challenge_id, rows in gathered.items():
            await in_worker_thread(
                progress_buffer.add, _prefix(), challenge_id, list(rows.values())
            )
            await self._open_window("progress", challenge_id)

    # --- the windows: one push per challenge and window, whichever process claims it ---

    async def _open_window(self, kind: str, challenge_id: int) -> None:
        if await self._claim(kind, challenge_id):
            submit(lambda: self._flush_at_window_end(kind, challenge_id))

    async def _flush_at_window_end(self, kind: str, challenge_id: int) -> None:
        await asyncio.sleep(WINDOW_SECONDS[kind])
        await self._flush(kind, challenge_id)

    async def _flush(self, kind: str, challenge_id: int) -> None:
        await self._release(kind, challenge_id)
        if kind == "board":
            payload = await in_worker_thread(board_payload, challenge_id)
            # Counted before the send: a watcher can read the board (and a scrape follow)
            # before this coroutine resumes after the group send.
            BOARDS_PUSHED.inc()
            await send(group_name(challenge_id), "board.update", payload)
            await self._flush_leagues(challenge_id)
            return
        rows = await in_worker_thread(progress_buffer.take, _prefix(), challenge_id)
        if rows:
            counts = await in_worker_thread(selectors.players_counts, challenge_id)
            payload = {
                "type": "progress",
                "challenge_id": challenge_id,
                "players": rows,
                "counts": counts,
            }
            await send(group_name(challenge_id), "progress.update", payload)

    async def _flush_leagues(self, challenge_id: int) -> None:
        """The same window's boards of the challenge's watched leagues: each read once for
        all its watchers and sent to the league's group."""
        for group, payload in await in_worker_thread(league_board_payloads, challenge_id):
            await send(group, "league_board.update", payload)

    async def _claim(self, kind: str, challenge_id: int) -> bool:
        """Claim the challenge's window: an atomic add in the shared cache (in a worker
        thread: Django's ``aadd`` would queue behind the consumers' database reads on the
        one thread-sensitive executor)."""
        try:
            key = _claim_key(kind, challenge_id)
            return bool(await in_worker_thread(cache.add, key, 1, CLAIM_EXPIRY_SECONDS))
        except Exception as error:
            # Without Redis nobody else can push either: coalesce in this process.
            log.warning("%s window claim in the cache failed: %r", kind, error)
        if (kind, challenge_id) in self._claimed:
            return False
        self._claimed.add((kind, challenge_id))
        return True

    async def _release(self, kind: str, challenge_id: int) -> None:
        self._claimed.discard((kind, challenge_id))
        try:
            await in_worker_thread(cache.delete, _claim_key(kind, challenge_id))
        except Exception as error:
            log.warning("%s window release in the cache failed: %r", kind, error)


def _prefix() -> str:
    # The cache's KEY_PREFIX keeps deployments apart; the layer's prefix, test workers and
    # Redis databases (core/live/channel_layer.py).
    return str(getattr(get_channel_layer(), "prefix", "asgi"))


def _claim_key(kind: str, challenge_id: int) -> str:
    return f"{_prefix()}:leaderboards:{kind}-window:{challenge_id}"


broadcaster = Broadcaster()
