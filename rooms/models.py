"""Race rooms: several players, one proven deal, one start signal.

A room is opened by its host with a variant, 2 to 8 seats, public (listed) or by link
only, and a time limit. Players take seats and mark ready; the start gives every seat a
practice attempt (games' Attempt) on the same deal, all starting at the same server
instant. The attempts are played through the games API like any other; the room only
links them and says when the race is over.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from games.models import VARIANT_CHOICES, Attempt, Deal

MIN_SEATS, MAX_SEATS = 2, 8
MIN_MINUTES, MAX_MINUTES = 5, 60
COUNTDOWN_SECONDS = 3


class Room(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby"  # taking seats
        RACING = "racing"  # started (counting down until ``starts_at``, then racing)
        FINISHED = "finished"  # every racer won or resigned, or the time limit passed
        CLOSED = "closed"  # left empty before a start

    code = models.CharField(max_length=16, unique=True)  # the room's link: /rooms/<code>/
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    seats = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_SEATS), MaxValueValidator(MAX_SEATS)]
    )
    public = models.BooleanField(default=True)
    time_limit_minutes = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_MINUTES), MaxValueValidator(MAX_MINUTES)]
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.LOBBY)
    deal = models.ForeignKey(
        Deal, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    starts_at = models.DateTimeField(null=True, blank=True)  # the start signal (server clock)
    ends_at = models.DateTimeField(null=True, blank=True)  # the time limit
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    emptied_at = models.DateTimeField(null=True, blank=True)  # the last seat left the lobby

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(seats__gte=MIN_SEATS, seats__lte=MAX_SEATS), name="room_seats_2_to_8"
            ),
            models.CheckConstraint(
                condition=Q(
                    time_limit_minutes__gte=MIN_MINUTES, time_limit_minutes__lte=MAX_MINUTES
                ),
                name="room_time_limit_5_to_60",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["lobby", "closed"])
                | Q(deal__isnull=False, starts_at__isnull=False, ends_at__isnull=False),
                name="room_started_has_deal_and_times",
            ),
        ]
        indexes = [models.Index(fields=["status", "public", "created_at"], name="room_listing")]

    def __str__(self) -> str:
        return f"Room {self.code} ({self.variant}, {self.status})"


class Seat(models.Model):
    """One player's place in a room; once the race starts, their attempt."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seat_set")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ready = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)
    attempt = models.OneToOneField(
        Attempt, on_delete=models.PROTECT, null=True, blank=True, related_name="seat"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "player"], name="seat_one_per_player"),
        ]
        ordering = ["joined_at", "pk"]

    def __str__(self) -> str:
        return f"Seat of {self.player_id} in room {self.room_id}"
