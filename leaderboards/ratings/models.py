"""Ratings (issue 31): a skill rating per player and variant, one match per closed daily.

The models live here and are registered by ``leaderboards/models.py`` importing them (the app
label stays ``leaderboards``; their migration is ``leaderboards/migrations/0005_ratings.py``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import VARIANT_CHOICES, DailyChallenge

# The rating board lists players with at least this many rated days.
BOARD_MIN_RATED_DAYS = 3


class PlayerRating(models.Model):
    """A player's current Plackett-Luce rating in one variant (openskill's mu and sigma).

    ``rating`` is the shown number, openskill's ordinal ``mu - 3 * sigma``, kept as a column so
    that the rating board is an index scan.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField()
    rated_days = models.PositiveIntegerField(default=0)
    last_challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    last_date = models.DateField(null=True)

    class Meta:
        app_label = "leaderboards"
        constraints = [
            models.UniqueConstraint(fields=["player", "variant"], name="rating_once_per_variant"),
        ]
        indexes = [
            # The rating board: best first, only the players it lists.
            models.Index(
                "variant",
                models.F("rating").desc(),
                name="rating_board_order",
                condition=Q(rated_days__gte=BOARD_MIN_RATED_DAYS),
            ),
        ]

    def __str__(self) -> str:
        return f"rating of player {self.player_id} in {self.variant}: {self.rating:.2f}"


class RatingChange(models.Model):
    """What one rated day did to one player's rating: their rank of how many, before, after."""

    challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.CASCADE, related_name="rating_changes"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    rank = models.PositiveIntegerField()
    players = models.PositiveIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        app_label = "leaderboards"
        constraints = [
            # Also the index of a player's history (player first).
            models.UniqueConstraint(fields=["player", "challenge"], name="rating_change_once"),
        ]
        indexes = [models.Index(fields=["challenge"], name="rating_change_by_challenge")]

    def __str__(self) -> str:
        return f"rating change of player {self.player_id} on challenge {self.challenge_id}"


class RatedDay(models.Model):
    """A closed daily whose match has been rated: the unique row that makes rating it once."""

    challenge = models.OneToOneField(
        DailyChallenge, on_delete=models.CASCADE, related_name="rated_day"
    )
    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    date = models.DateField()
    players = models.PositiveIntegerField()
    rated_at = models.DateTimeField()

    class Meta:
        app_label = "leaderboards"
        indexes = [models.Index(fields=["variant", "date"], name="rated_day_by_variant")]

    def __str__(self) -> str:
        return f"rated {self.variant} of {self.date} ({self.players} players)"
