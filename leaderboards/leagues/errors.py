"""The leagues' refusals: one family under ``core.api_errors.DomainError`` (mapped to HTTP
once, by the API's error handler). ``details.field`` names the input at fault, if any."""

from __future__ import annotations

from core.api_errors import DomainError


class LeagueError(DomainError):
    code = "league_error"
    http_status = 400


class LeagueNotFoundError(LeagueError):
    """No such league, or the asker is not a member: the same answer, so that ids reveal
    neither names nor members."""

    code = "not_found"
    http_status = 404


class LeagueNameTakenError(LeagueError):
    code = "league_name_taken"
    http_status = 409


class InviteInvalidError(LeagueError):
    """A code that is no league's (wrong, or replaced by the owner)."""

    code = "invite_invalid"
    http_status = 400


class RemovedFromLeagueError(LeagueError):
    """The owner removed this player; the code they were removed under stays closed to them."""

    code = "removed_from_league"
    http_status = 403


class LeagueFullError(LeagueError):
    code = "league_full"
    http_status = 409


class NotLeagueOwnerError(LeagueError):
    code = "not_league_owner"
    http_status = 403


class NotAMemberError(LeagueError):
    """The player named is not in this league."""

    code = "not_a_member"
    http_status = 404


class OwnerCannotLeaveError(LeagueError):
    """The owner hands the league over (or deletes it) before leaving."""

    code = "owner_cannot_leave"
    http_status = 409
