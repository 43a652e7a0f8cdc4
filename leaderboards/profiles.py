"""A player's public page: who may see it, and the player's own choice to hide it.

A hidden page answers everyone but its owner exactly as an unknown name does (the same 404,
the same body), so that hiding a page does not tell that the name exists behind it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404

from leaderboards.models import PlayerProfile


def profile_hidden(player: Any) -> bool:
    return PlayerProfile.objects.filter(player=player, hidden=True).exists()


def visible_player(username: str, viewer: Any) -> Any:
    """The player called ``username`` if ``viewer`` may see their page; else ``Http404``,
    the same for a hidden page as for a name nobody has."""
    user_model = get_user_model()
    player = user_model.objects.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise Http404
    if getattr(viewer, "pk", None) != player.pk and profile_hidden(player):
        raise Http404
    return player


def player_profile_update(*, player: Any, hidden: bool) -> PlayerProfile:
    """Show or hide the player's page (a row only once they chose: none means public)."""
    with transaction.atomic():
        profile, _ = PlayerProfile.objects.select_for_update().get_or_create(player=player)
        if profile.hidden != hidden:
            profile.hidden = hidden
            profile.save(update_fields=["hidden", "updated_at"])
    return profile
