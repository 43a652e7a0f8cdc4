"""A league's live board of one challenge: ``ws/challenges/<id>/leagues/<league_id>/``.

The same feed as the day's board (leaderboards/consumers.py: snapshot, ``board``,
``progress``, ping, close codes) with the league's rows: ranks within the league, counts
of its members, and only its members' progress. Members only: anyone else is closed with
4404, as for a board that does not exist. The league's boards come from its own group,
filled once per push window for all its watchers; the day's group is joined for the
progress pushes only, filtered here to the members of the moment of connecting. Every
watcher is a signed-in member with a row of their own (``me``): the league's whole board
is read once per push in each process, for all its watchers there, and each one's row is
spliced into the push's text (no query and no JSON encoding of the board per watcher).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from leaderboards.consumers import ChallengeConsumer
from leaderboards.leagues.boards import league_day_board
from leaderboards.leagues.live import league_group_name, league_snapshot_payload
from leaderboards.leagues.selectors import is_member, member_usernames
from leaderboards.leagues.watched import mark_watched

log = logging.getLogger(__name__)


# The whole board of a league at one push, per process: (loop, challenge, league, hash of
# the push) -> the read under way or done. Kept for PUSH_MEMO_SECONDS.
PUSH_MEMO_SECONDS = 10.0
_pushes: dict[tuple[int, int, int, int], tuple[float, asyncio.Future[dict[str, Any]]]] = {}


def _rows_by_username(challenge_id: int, league_id: int) -> dict[str, Any]:
    board = league_day_board(challenge_id, league_id)
    return {row.username: row.as_json() for row in board.rows}


async def rows_of_push(challenge_id: int, league_id: int, text: str) -> dict[str, Any]:
    """Every member's row of the league's board as of this push, read once per process."""
    loop = asyncio.get_running_loop()
    now = loop.time()
    for key in [k for k, (at, _) in _pushes.items() if now - at > PUSH_MEMO_SECONDS]:
        del _pushes[key]
    key = (id(loop), challenge_id, league_id, hash(text))
    found = _pushes.get(key)
    if found is None:
        read = database_sync_to_async(_rows_by_username)(challenge_id, league_id)
        found = _pushes[key] = (now, asyncio.ensure_future(read))
    return await asyncio.shield(found[1])


class LeagueBoardConsumer(ChallengeConsumer):
    league_id: int
    members: frozenset[str] = frozenset()

    def may_watch(self) -> bool:
        self.league_id = int(self.scope["url_route"]["kwargs"]["league_id"])
        return is_member(self.league_id, self.player_id)

    def group_names(self) -> list[str]:
        return [self.group_name, league_group_name(self.challenge_id, self.league_id)]

    def read_snapshot(self) -> dict[str, Any] | None:
        snapshot = league_snapshot_payload(self.challenge_id, self.league_id, self.player_id)
        if snapshot is not None:
            self.members = frozenset(member_usernames(self.league_id))
            self._mark_watched()
        return snapshot

    def _mark_watched(self) -> None:
        try:
            mark_watched(self.challenge_id, self.league_id)
        except Exception as error:  # no league pushes until the next ping; not fatal
            log.warning("league %s watch not marked: %r", self.league_id, error)

    async def pinged(self) -> None:
        await sync_to_async(self._mark_watched, thread_sensitive=False)()

    # --- group events ---

    async def board_update(self, event: dict[str, Any]) -> None:
        """The whole day's board: not this watcher's (its league's comes on its own)."""

    async def league_board_update(self, event: dict[str, Any]) -> None:
        """The league's board, with this watcher's own row spliced into the text encoded
        once for all: the row comes from the league's whole board, read once per push in
        this process for all its watchers here (not once per watcher)."""
        rows = await rows_of_push(self.challenge_id, self.league_id, event["text"])
        self.own = rows.get(self.username or "")
        text: str = event["text"]
        await self.send(text_data=f'{text[:-1]}, "me": {json.dumps(self.own)}}}')

    async def progress_update(self, event: dict[str, Any]) -> None:
        """The day's progress push, cut to the league's members; its counts are the day's,
        so they are left out (the league's come with its boards)."""
        payload = json.loads(event["text"])
        players = [row for row in payload["players"] if row["username"] in self.members]
        if players:
            await self.send_json({**payload, "players": players, "counts": None})
