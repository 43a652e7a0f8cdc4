"""Where accounts play from (sightings), and the reviews staff read in their queue."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Attempt


class Sighting(models.Model):
    """One account seen with one device cookie, client address (hashed) and client.

    Recorded on sign-up, log-in, a token's issue and the start of a daily; one row per
    combination, its first and last time. The address is an HMAC under the SECRET_KEY, never
    the address itself.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sightings"
    )
    device = models.CharField(max_length=64, blank=True)  # "" for a client without the cookie
    address = models.CharField(max_length=64, blank=True)  # hex HMAC-SHA256 of REMOTE_ADDR
    client = models.CharField(max_length=200, blank=True)  # the User-Agent, cut to 200
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "device", "address", "client"], name="sighting_unique"
            )
        ]
        indexes = [
            models.Index(fields=["device"], name="sighting_by_device"),
            models.Index(fields=["address"], name="sighting_by_address"),
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} seen {self.last_seen_at:%Y-%m-%d %H:%M}"


class Review(models.Model):
    """An ended ranked attempt put in front of staff, with its evidence.

    ``evidence`` is a list of ``{"kind", "text", "attempt_ids", "account_ids"}``. A review
    changes no board: staff void the attempt or clear the review.
    """

    class Severity(models.IntegerChoices):
        LOW = 1, "low"
        MEDIUM = 2, "medium"
        HIGH = 3, "high"

    class Status(models.TextChoices):
        OPEN = "open"
        CLEARED = "cleared"
        VOIDED = "voided"

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="review")
    severity = models.PositiveSmallIntegerField(choices=Severity.choices)
    evidence = models.JSONField(default=list)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-severity", "-id"]
        indexes = [models.Index(fields=["status", "severity"], name="review_queue")]

    def __str__(self) -> str:
        return f"Review of attempt {self.attempt_id} ({self.get_severity_display()}, {self.status})"


class GameFits(models.Model):
    """How one ended ranked game's deals fitted (reviews/foreknowledge.py): each dealt card
    it had never seen, onto a top one could fit, as its chance of fitting; and the fits.
    Kept so that a player's recent games are weighed together without replaying them."""

    attempt = models.OneToOneField(
        Attempt, on_delete=models.CASCADE, primary_key=True, related_name="deal_fits"
    )
    chances = models.JSONField(default=list)
    fits = models.PositiveSmallIntegerField(default=0)

    def __str__(self) -> str:
        return f"attempt {self.attempt_id}: {self.fits} of {len(self.chances)} deals fitted"
