"""Which reminders are due now, kind by kind: each finder returns the players to remind,
the UTC date the reminder is for (at most one of each kind a player and day) and its
message. Only players with a subscription and that kind switched on are looked at; quiet
hours and the once-a-day rule are the sender's (notifications/sending.py)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse

from games.models import BOARD_CONDITION, Attempt, DailyChallenge
from games.selectors import day_end, utc_today
from leaderboards.leagues.boards import league_day_board
from leaderboards.models import League, LeagueMember
from leaderboards.selectors import streaks
from notifications import kinds
from notifications.kinds import Kind, Message
from notifications.models import PushSubscription, ReminderSent, ReminderSettings
from rooms.models import Room, Seat

VARIANT_LABELS = {
    "astrocyte": "Astrocyte",
    "spider1": "Spider (1 suit)",
    "spider2": "Spider (2 suits)",
    "spider4": "Spider (4 suits)",
}
# A race's reminder goes out while its start is at most this far off (a run of the beat
# every REMINDERS_EVERY seconds finds it).
RACE_WINDOW = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class Reminder:
    player_id: int
    day: dt.date
    message: Message

    @property
    def kind(self) -> Kind:
        return self.message.kind


def subscribed(kind: Kind, day: dt.date) -> QuerySet[Any]:
    """Players with a push subscription, who have not switched ``kind`` off and have not
    had that kind's reminder for ``day`` yet."""
    switched_off = ReminderSettings.objects.filter(player=OuterRef("pk"), **{kind.value: False})
    sent = ReminderSent.objects.filter(player=OuterRef("pk"), kind=kind, day=day)
    return (
        get_user_model()
        .objects.filter(Exists(PushSubscription.objects.filter(player=OuterRef("pk"))))
        .exclude(Exists(switched_off))
        .exclude(Exists(sent))
    )


def _ranked_today(today: dt.date) -> QuerySet[Attempt]:
    return Attempt.objects.filter(player=OuterRef("pk"), kind="ranked", challenge__date=today)


def deal_ready(now: dt.datetime) -> Iterator[Reminder]:
    """Today's daily is open (proven and playable): to each player who has not started it."""
    today = utc_today(now)
    dailies = DailyChallenge.objects.filter(date=today).select_related("deal")
    if not any(daily.deal.is_playable for daily in dailies):
        return
    message = kinds.deal_ready()
    players = subscribed(Kind.DEAL_READY, today).exclude(Exists(_ranked_today(today)))
    for player_id in players.values_list("pk", flat=True).iterator(chunk_size=2000):
        yield Reminder(player_id, today, message)


def streak_ending(now: dt.datetime) -> Iterator[Reminder]:
    """A player who won yesterday's daily, has not started today's, and has fewer hours of
    the day left than they asked to be told at: their longest such streak."""
    today = utc_today(now)
    hours_left = max(1, math.ceil((day_end(today) - now).total_seconds() / 3600))
    asked_hours = Subquery(
        ReminderSettings.objects.filter(player=OuterRef("pk")).values("streak_hours")[:1]
    )
    won_yesterday = Attempt.objects.filter(
        BOARD_CONDITION,
        player=OuterRef("pk"),
        won=True,
        challenge__date=today - dt.timedelta(days=1),
    )
    players = (
        subscribed(Kind.STREAK_ENDING, today)
        .annotate(hours=Coalesce(asked_hours, Value(ReminderSettings().streak_hours)))
        .filter(Exists(won_yesterday), hours__gte=hours_left)
        .exclude(Exists(_ranked_today(today)))
    )
    for player in players.iterator(chunk_size=500):
        best = max(
            (streaks(player, variant, today) for variant in settings.DAILY_VARIANTS),
            key=lambda streak: streak["current"],
        )
        if best["current"] > 0:
            label = VARIANT_LABELS.get(best["variant"], best["variant"])
            message = kinds.streak_ending(best["current"], label, hours_left)
            yield Reminder(player.pk, today, message)


def league_passed(now: dt.datetime) -> Iterator[Reminder]:
    """A league mate who finished after a player now ranks above them on today's board."""
    today = utc_today(now)
    wanted = subscribed(Kind.LEAGUE_PASSED, today).values("pk")
    leagues = League.objects.filter(
        Exists(LeagueMember.objects.filter(league=OuterRef("pk"), player__in=wanted))
    )
    challenges = list(DailyChallenge.objects.filter(date=today).values_list("pk", flat=True))
    for league in leagues.iterator(chunk_size=200):
        members = LeagueMember.objects.filter(league=league)
        player_ids = dict(members.values_list("player__username", "player_id"))
        reminded = set(members.filter(player__in=wanted).values_list("player_id", flat=True))
        url = reverse("frontend:league", args=[league.pk])
        for challenge_id in challenges:
            rows = league_day_board(challenge_id, league.pk).rows
            for row in rows:
                player_id = player_ids.get(row.username)
                if player_id not in reminded:
                    continue
                passers = [
                    other
                    for other in rows
                    if other.rank < row.rank and other.ended_at > row.ended_at
                ]
                if passers:
                    mate = max(passers, key=lambda other: other.ended_at).username
                    message = kinds.league_passed(mate, league.name, row.rank, len(rows), url)
                    yield Reminder(player_id, today, message)


def race_starting(now: dt.datetime) -> Iterator[Reminder]:
    """A race that starts (or started) within RACE_WINDOW of now: to each player seated in
    it (the players the room's link brought in)."""
    today = utc_today(now)
    rooms = Room.objects.filter(
        status=Room.Status.RACING,
        starts_at__gte=now - RACE_WINDOW,
        starts_at__lte=now + RACE_WINDOW,
    )
    seats = Seat.objects.filter(
        room__in=rooms, player__in=subscribed(Kind.RACE_STARTING, today).values("pk")
    ).select_related("room")
    for seat in seats:
        url = reverse("frontend:room", args=[seat.room.code])
        yield Reminder(seat.player_id, today, kinds.race_starting(seat.room.code, url))


FINDERS = {
    Kind.DEAL_READY: deal_ready,
    Kind.STREAK_ENDING: streak_ending,
    Kind.LEAGUE_PASSED: league_passed,
    Kind.RACE_STARTING: race_starting,
}
