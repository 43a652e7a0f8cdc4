"""The kinds of reminder and their words. A reminder says that something happened, never
anything about a deal: no card, no seed, no move of an open day (rank numbers and league
mates' names are on the boards already)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models


class Kind(models.TextChoices):
    DEAL_READY = "deal_ready", "Today's deal is ready"
    STREAK_ENDING = "streak_ending", "Your streak ends soon and you have not played"
    LEAGUE_PASSED = "league_passed", "A league mate passed you on today's board"
    RACE_STARTING = "race_starting", "A race room you are seated in starts"


@dataclass(frozen=True)
class Message:
    """What the service worker shows: a title, a line, and the page a tap opens."""

    kind: Kind
    title: str
    body: str
    url: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "title": self.title, "body": self.body, "url": self.url}


def deal_ready() -> Message:
    return Message(Kind.DEAL_READY, "Today's deal is ready", "A new daily deal is open.", "/")


def streak_ending(days: int, variant_label: str, hours_left: int) -> Message:
    hours = "1 hour" if hours_left <= 1 else f"{hours_left} hours"
    return Message(
        Kind.STREAK_ENDING,
        f"Your {days}-day streak ends in {hours}",
        f"You have not played today's {variant_label} daily yet.",
        "/",
    )


def league_passed(mate: str, league: str, rank: int, players: int, league_url: str) -> Message:
    return Message(
        Kind.LEAGUE_PASSED,
        f"{mate} passed you in {league}",
        f"You are now #{rank} of {players} on today's board.",
        league_url,
    )


def race_starting(room_code: str, room_url: str) -> Message:
    return Message(
        Kind.RACE_STARTING, "Your race starts", f"The race in room {room_code} is on.", room_url
    )
