"""Reminders by Web Push: a player's subscriptions (one per browser they allowed), their
choices (which kinds, quiet hours in their own time zone) and the reminders sent, at most
one of each kind a day (a unique row per player, kind and UTC date)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from notifications.kinds import Kind

ENDPOINT_MAX_CHARS = 2048
STREAK_HOURS_MIN, STREAK_HOURS_MAX = 1, 23


class PushSubscription(models.Model):
    """A browser's push subscription (RFC 8030's push resource and RFC 8291's keys)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # The push service's address for this browser: secret to the server and that browser.
    endpoint = models.URLField(max_length=ENDPOINT_MAX_CHARS, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's P-256 public key, base64url
    auth = models.CharField(max_length=40)  # the 16-byte authentication secret, base64url
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push subscription #{self.pk} of player {self.player_id}"

    def subscription_info(self) -> dict[str, object]:
        """The shape the browser's PushSubscription.toJSON() has (what pywebpush takes)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class ReminderSettings(models.Model):
    """A player's choices; no row: every kind on, no quiet hours, UTC."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="reminder_settings",
    )
    deal_ready = models.BooleanField(default=True)
    streak_ending = models.BooleanField(default=True)
    league_passed = models.BooleanField(default=True)
    race_starting = models.BooleanField(default=True)
    # "Your streak ends in N hours": sent once fewer than this many hours are left of the day.
    streak_hours = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(STREAK_HOURS_MIN), MaxValueValidator(STREAK_HOURS_MAX)],
    )
    time_zone = models.CharField(max_length=64, default="UTC")  # an IANA name
    # No reminder between these two times of the player's day (both set, or neither); one
    # held back is sent after, if it still holds.
    quiet_from = models.TimeField(null=True, blank=True)
    quiet_until = models.TimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(quiet_from__isnull=True, quiet_until__isnull=True)
                | models.Q(quiet_from__isnull=False, quiet_until__isnull=False),
                name="reminder_quiet_hours_both_or_neither",
            ),
        ]

    def __str__(self) -> str:
        return f"reminder settings of player {self.player_id}"


class ReminderSent(models.Model):
    """A reminder of one kind sent to one player for one UTC date: the row is taken before
    the push (``run`` names the sending run that took it), and given back when no push
    service took the message, so that a later run sends it."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    day = models.DateField()
    run = models.CharField(max_length=32)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "kind", "day"], name="reminder_once_a_day"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} reminder of {self.day} to player {self.player_id}"
