"""The scout's shape and the links between accounts: the evidence a review is made of.

Nothing here reads a card: a scout is seen by when it dealt, not by what it saw.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from games.models import Attempt
from reviews.models import Sighting

# An ended attempt not won that made at least SCOUT_DEALS stock deals within its first
# SCOUT_WITHIN actions has the scout's shape (all five deals in five actions shows the whole
# stock; a reference player deals when its moves run out, much later).
SCOUT_DEALS = 3
SCOUT_WITHIN = 12
# Linked accounts that signed up this close together weigh more.
SIGNUPS_CLOSE_SECONDS = 3600

DEAL = "deal"


def scout_shape(attempt: Attempt) -> str | None:
    """Why an ended attempt looks like a scout's (dealt through the stock early and did not
    win), or None."""
    if not attempt.is_over or attempt.won:
        return None
    early = [str(action) for action in attempt.log[:SCOUT_WITHIN]]
    deals = early.count(DEAL)
    if deals < SCOUT_DEALS:
        return None
    last_deal = max(i for i, action in enumerate(early) if action == DEAL) + 1
    ended = "resigned" if attempt.end_reason == Attempt.EndReason.RESIGNED else "left it"
    return (
        f"made {deals} stock deals within its first {last_deal} actions, then {ended} "
        f"after {len(attempt.log)} actions without winning"
    )


@dataclass
class Link:
    """How another account is linked to one account: by which shared traces."""

    user_id: int
    kinds: set[str] = field(default_factory=set)

    @property
    def by_device(self) -> bool:
        return "device" in self.kinds

    def describe(self) -> str:
        words = {
            "device": "the same browser (device cookie)",
            "address": "the same client address",
            "address+client": "the same address and client (User-Agent)",
        }
        return ", ".join(words[kind] for kind in sorted(self.kinds))


def linked_accounts(user_id: int) -> dict[int, Link]:
    """Other accounts seen with one of this account's device cookies or client addresses."""
    mine = list(Sighting.objects.filter(user_id=user_id))
    devices = {s.device for s in mine if s.device}
    addresses = {s.address for s in mine if s.address}
    pairs = {(s.address, s.client) for s in mine if s.address and s.client}
    if not devices and not addresses:
        return {}
    links: dict[int, Link] = defaultdict(lambda: Link(0))
    others = Sighting.objects.filter(Q(device__in=devices) | Q(address__in=addresses)).exclude(
        user_id=user_id
    )
    for other in others:
        link = links[other.user_id]
        link.user_id = other.user_id
        if other.device and other.device in devices:
            link.kinds.add("device")
        if other.address in addresses:
            link.kinds.add("address")
            if (other.address, other.client) in pairs:
                link.kinds.add("address+client")
    return dict(links)


def signup_gap_seconds(first: Any, second: Any) -> float:
    return abs((first.date_joined - second.date_joined).total_seconds())
