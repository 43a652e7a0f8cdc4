"""The rooms app's refusals: one family under ``core.api_errors.DomainError`` (mapped to
HTTP once, by the API's error handler), each with its code and status."""

from __future__ import annotations

from core.api_errors import DomainError


class RoomsError(DomainError):
    code = "rooms_error"
    http_status = 400


class RoomNotFoundError(RoomsError):
    """No such room (a private room's code is its secret: an unknown one reads the same)."""

    code = "not_found"
    http_status = 404


class RoomFullError(RoomsError):
    code = "room_full"
    http_status = 409


class RoomStartedError(RoomsError):
    """The room is no longer taking seats or changes: its race started (or it closed)."""

    code = "room_started"
    http_status = 409


class NotSeatedError(RoomsError):
    code = "not_seated"
    http_status = 403


class NotHostError(RoomsError):
    code = "not_host"
    http_status = 403


class AlreadyReadyError(RoomsError):
    code = "already_ready"
    http_status = 409


class TooFewRacersError(RoomsError):
    code = "too_few_racers"
    http_status = 409


class RaceNotOverError(RoomsError):
    """The deal, the solution and the racers' games are public once the race is over."""

    code = "race_not_over"
    http_status = 403
