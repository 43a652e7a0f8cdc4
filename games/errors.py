"""The games app's domain errors: one family, mapped to HTTP once (config.api_errors)."""


class GamesError(Exception):
    """Base of every refusal of a games service; the message is for the person who asked."""

    code = "games_error"


class DealStateError(GamesError):
    """The deal is not in a state that allows this operation."""

    code = "deal_state"
