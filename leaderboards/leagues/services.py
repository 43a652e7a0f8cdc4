"""Writes on leagues, each one transaction: nothing half-done on a refusal.

The member cap holds under concurrency: a join locks the league's row (``SELECT … FOR
UPDATE``) before counting, so two joins of the 500th place run one after the other.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from leaderboards.leagues.errors import (
    InviteInvalidError,
    LeagueFullError,
    LeagueNameTakenError,
    LeagueNotFoundError,
    NotAMemberError,
    NotLeagueOwnerError,
    OwnerCannotLeaveError,
    RemovedFromLeagueError,
)
from leaderboards.models import LEAGUE_MAX_MEMBERS, League, LeagueMember, LeagueRemoval


def new_invite_code() -> str:
    """96 random bits, URL-safe: guessing one is hopeless."""
    return secrets.token_urlsafe(12)


def _name_taken(name: str) -> LeagueNameTakenError:
    return LeagueNameTakenError(
        f"You already have a league named {name!r}.", details={"field": "name"}
    )


def league_create(*, owner: Any, name: str) -> League:
    """A new league owned (and joined) by ``owner``; ``name`` is already validated."""
    if League.objects.filter(owner=owner, name__iexact=name).exists():
        raise _name_taken(name)
    try:
        with transaction.atomic():
            league = League.objects.create(owner=owner, name=name, invite_code=new_invite_code())
            LeagueMember.objects.create(league=league, player=owner)
    except IntegrityError as error:  # the same name, created at the same moment
        raise _name_taken(name) from error
    return league


def _locked_for_member(league_id: int, player: Any) -> League:
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None or not LeagueMember.objects.filter(league=league, player=player).exists():
        raise LeagueNotFoundError("No such league.")
    return league


def _locked_for_owner(league_id: int, owner: Any) -> League:
    league = _locked_for_member(league_id, owner)
    if league.owner_id != owner.pk:
        raise NotLeagueOwnerError("Only the league's owner may do this.")
    return league


@transaction.atomic
def league_join(*, player: Any, code: str) -> tuple[League, bool]:
    """(the league, whether the player is new in it). Joining twice is not an error."""
    league = League.objects.select_for_update().filter(invite_code=code).first()
    if league is None:
        raise InviteInvalidError(
            "This invite code is not valid: it is mistyped, or the owner has replaced it.",
            details={"field": "code"},
        )
    if LeagueMember.objects.filter(league=league, player=player).exists():
        return league, False
    if LeagueRemoval.objects.filter(league=league, player=player, invite_code=code).exists():
        raise RemovedFromLeagueError(
            "The owner removed you from this league; this invite no longer lets you in.",
            details={"field": "code"},
        )
    if LeagueMember.objects.filter(league=league).count() >= LEAGUE_MAX_MEMBERS:
        raise LeagueFullError(
            f"This league is full ({LEAGUE_MAX_MEMBERS} members).",
            details={"max_members": LEAGUE_MAX_MEMBERS},
        )
    LeagueMember.objects.create(league=league, player=player)
    LeagueRemoval.objects.filter(league=league, player=player).delete()  # let in anew
    return league, True


@transaction.atomic
def league_rotate_code(*, league_id: int, owner: Any) -> League:
    league = _locked_for_owner(league_id, owner)
    league.invite_code = new_invite_code()
    league.save(update_fields=["invite_code"])
    return league


def _member_named(league: League, username: str) -> Any:
    user_model = get_user_model()
    player = user_model.objects.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None or not LeagueMember.objects.filter(league=league, player=player).exists():
        raise NotAMemberError(
            f"{username!r} is not a member of this league.", details={"field": "username"}
        )
    return player


@transaction.atomic
def league_remove_member(*, league_id: int, owner: Any, username: str) -> None:
    league = _locked_for_owner(league_id, owner)
    player = _member_named(league, username)
    if player.pk == owner.pk:
        raise OwnerCannotLeaveError(
            "The owner cannot remove themselves: hand the league over or delete it.",
            details={"field": "username"},
        )
    LeagueMember.objects.filter(league=league, player=player).delete()
    LeagueRemoval.objects.update_or_create(
        league=league, player=player, defaults={"invite_code": league.invite_code}
    )


@transaction.atomic
def league_leave(*, league_id: int, player: Any) -> None:
    league = _locked_for_member(league_id, player)
    if league.owner_id == player.pk:
        raise OwnerCannotLeaveError(
            "The owner cannot leave: hand the league over to a member, or delete it."
        )
    LeagueMember.objects.filter(league=league, player=player).delete()


@transaction.atomic
def league_hand_over(*, league_id: int, owner: Any, username: str) -> League:
    league = _locked_for_owner(league_id, owner)
    heir = _member_named(league, username)
    if League.objects.filter(owner=heir, name__iexact=league.name).exists() and heir != owner:
        raise LeagueNameTakenError(
            f"{username!r} already owns a league named {league.name!r}.",
            details={"field": "username"},
        )
    league.owner = heir
    league.save(update_fields=["owner"])
    return league


@transaction.atomic
def league_delete(*, league_id: int, owner: Any) -> None:
    _locked_for_owner(league_id, owner).delete()
