"""A league's live board of one challenge: ``ws/challenges/<id>/leagues/<league_id>/``.

The same feed as the day's board (leaderboards/consumers.py: snapshot, ``board``,
``progress``, ping, close codes) with the league's rows: ranks within the league, counts
of its members, and only its members' progress. Members only: anyone else is closed with
4404, as for a board that does not exist. The league's boards come from its own group,
filled once per push window for all its watchers; the day's group is joined for the
progress pushes only, filtered here to the members of the moment of connecting.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import sync_to_async

from leaderboards.consumers import ChallengeConsumer
from leaderboards.leagues.live import league_group_name, league_own_row, league_snapshot_payload
from leaderboards.leagues.selectors import is_member, member_usernames
from leaderboards.leagues.watched import mark_watched

log = logging.getLogger(__name__)


class LeagueBoardConsumer(ChallengeConsumer):
    league_id: int
    members: frozenset[str] = frozenset()

    def may_watch(self) -> bool:
        self.league_id = int(self.scope["url_route"]["kwargs"]["league_id"])
        return is_member(self.league_id, self.player_id)

    def group_names(self) -> list[str]:
        return [self.group_name, league_group_name(self.challenge_id, self.league_id)]

    def read_snapshot(self) -> dict[str, Any] | None:
        snapshot = league_snapshot_payload(
            self.challenge_id, self.league_id, self.player_id, self.username
        )
        if snapshot is not None:
            self.members = frozenset(member_usernames(self.league_id))
            self._mark_watched()
        return snapshot

    def read_own_row(self) -> dict[str, Any] | None:
        return league_own_row(self.challenge_id, self.league_id, self.player_id)

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
        await self.forward_board(event)

    async def progress_update(self, event: dict[str, Any]) -> None:
        if event["payload"]["player"]["username"] in self.members:
            await self.send(text_data=event["text"])
