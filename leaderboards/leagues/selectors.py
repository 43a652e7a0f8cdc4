"""Reads of leagues. A league is visible to its members only: for anyone else an id is
"not found", exactly as an id that is no league's."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery

from leaderboards.leagues.errors import LeagueNotFoundError
from leaderboards.models import League, LeagueMember


def league_for_member(league_id: int, player: Any) -> League:
    """The league if ``player`` is in it; else LeagueNotFoundError (404)."""
    player_id = getattr(player, "pk", None)
    league = (
        League.objects.filter(pk=league_id, memberships__player_id=player_id)
        .select_related("owner")
        .first()
        if player_id is not None
        else None
    )
    if league is None:
        raise LeagueNotFoundError("No such league.")
    return league


def is_member(league_id: int, player_id: int | None) -> bool:
    return (
        player_id is not None
        and LeagueMember.objects.filter(league_id=league_id, player_id=player_id).exists()
    )


def leagues_of(player: Any) -> QuerySet[League]:
    """The player's leagues, by name, each with its ``member_count``."""
    members = (
        LeagueMember.objects.filter(league=OuterRef("pk"))
        .order_by()
        .values("league")
        .annotate(count=Count("id"))
        .values("count")
    )
    return (
        League.objects.filter(pk__in=LeagueMember.objects.filter(player=player).values("league"))
        .select_related("owner")
        .annotate(member_count=Subquery(members))
        .order_by("name", "id")
    )


def league_members(league: League) -> list[dict[str, Any]]:
    """The members, earliest first: name, when they joined, whether they own the league."""
    rows = (
        LeagueMember.objects.filter(league=league)
        .select_related("player")
        .order_by("joined_at", "id")
    )
    return [
        {
            "username": row.player.get_username(),
            "joined_at": row.joined_at,
            "owner": row.player_id == league.owner_id,
        }
        for row in rows
    ]


def member_usernames(league_id: int) -> set[str]:
    return {
        row.player.get_username()
        for row in LeagueMember.objects.filter(league_id=league_id).select_related("player")
    }
