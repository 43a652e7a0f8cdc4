"""Leagues: private boards of up to ``LEAGUE_MAX_MEMBERS`` players (issue 16).

The daily boards' own counts are games' (``games.models.BoardScoreCount``); a league's
board is the same ranking read over its members' attempts (leaderboards/leagues/boards.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

LEAGUE_MAX_MEMBERS = 500
LEAGUE_NAME_MAX_CHARS = 60


class League(models.Model):
    """A named group of players with an owner and an invite code the owner can replace."""

    name = models.CharField(max_length=LEAGUE_NAME_MAX_CHARS)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_leagues"
    )
    # The secret of the invite link; replacing it makes every earlier link stop working.
    invite_code = models.CharField(max_length=32, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # "Friends" and "friends" of one owner would be two leagues nobody can tell apart.
            models.UniqueConstraint(Lower("name"), "owner", name="league_unique_name_per_owner"),
        ]

    def __str__(self) -> str:
        return f"League #{self.pk} {self.name!r}"


class LeagueMember(models.Model):
    """One player in one league (the owner is a member too)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Also the index a league board joins on: (league, player), members of one league.
            models.UniqueConstraint(fields=["league", "player"], name="league_member_once"),
        ]

    def __str__(self) -> str:
        return f"player {self.player_id} in league {self.league_id}"


class LeagueRemoval(models.Model):
    """A player the owner removed, and the invite code of that moment: that code no longer
    lets them back in (a code the owner gives out later does)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="removals")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_removals"
    )
    invite_code = models.CharField(max_length=32)
    removed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["league", "player"], name="league_removal_once"),
        ]

    def __str__(self) -> str:
        return f"player {self.player_id} removed from league {self.league_id}"


class PlayerProfile(models.Model):
    """A player's choices about their public page (leaderboards/profiles.py). No row is the
    default: a public page."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="player_profile",
    )
    # Hidden: the page and its API answer others exactly as for an unknown name.
    hidden = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"profile of player {self.player_id} ({'hidden' if self.hidden else 'public'})"


# The ratings' models (leaderboards/ratings/models.py) belong to this app: importing them here
# registers them with it, for the ORM and for makemigrations.
from leaderboards.ratings.models import PlayerRating, RatedDay, RatingChange  # noqa: E402, F401
