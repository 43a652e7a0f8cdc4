"""Deals proven winnable by the solver, and the daily schedule that points at them."""

from __future__ import annotations

import hashlib

from django.db import models
from django.db.models import Q

from games.engine import VARIANTS

VARIANT_CHOICES = [(name, name) for name in VARIANTS]


def commitment_for(variant: str, seed: int, nonce: str) -> str:
    """The public SHA-256 commitment to a deal: revealed with its seed and nonce after the day."""
    return hashlib.sha256(f"{variant}:{seed}:{nonce}".encode()).hexdigest()


class Deal(models.Model):
    """One (variant, secret seed), and what the solver proved about it."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VERIFYING = "verifying"
        VERIFIED = "verified"
        UNSOLVABLE = "unsolvable"
        UNKNOWN = "unknown"
        FAILED = "failed"

    class Pool(models.TextChoices):
        DAILY = "daily"
        PRACTICE = "practice"

    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    # Seeds fill all 64 unsigned bits, which a signed bigint cannot hold.
    seed = models.DecimalField(max_digits=20, decimal_places=0)
    nonce = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, unique=True)
    pool = models.CharField(max_length=16, choices=Pool.choices, default=Pool.DAILY)
    rules_version = models.PositiveSmallIntegerField()
    solver_version = models.CharField(max_length=32, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    retired = models.BooleanField(default=False)

    solution = models.JSONField(null=True, blank=True)
    par = models.PositiveIntegerField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    difficulty_label = models.CharField(max_length=8, blank=True)
    solver_nodes = models.BigIntegerField(null=True, blank=True)
    solver_seconds = models.FloatField(null=True, blank=True)
    solver_peak_mb = models.FloatField(null=True, blank=True)
    verify_runs = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    verify_started_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant", "seed"], name="deal_unique_variant_seed"),
            models.CheckConstraint(
                condition=Q(seed__gte=0) & Q(seed__lte=2**64 - 1), name="deal_seed_is_u64"
            ),
        ]
        indexes = [models.Index(fields=["variant", "pool", "status"])]

    def __str__(self) -> str:
        return f"Deal #{self.pk} ({self.variant}, {self.status})"

    @property
    def seed_int(self) -> int:
        return int(self.seed)

    @property
    def is_playable(self) -> bool:
        return self.status == self.Status.VERIFIED and not self.retired


class DailyChallenge(models.Model):
    """The deal everyone plays in one variant on one UTC date."""

    date = models.DateField()
    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="dailies")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["date", "variant"], name="daily_unique_date_variant"),
            models.UniqueConstraint(fields=["deal"], name="daily_deal_used_once"),
        ]
        ordering = ["date", "variant"]

    def __str__(self) -> str:
        return f"{self.variant} of {self.date}"
