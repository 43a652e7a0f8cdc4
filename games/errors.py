"""The games app's domain errors: one family under ``core.api_errors.DomainError``, mapped
to HTTP once, by the API's error handler.

Each error carries a machine-readable ``code``, the HTTP status it stands for
(``http_status``; the services never import the web layer, the handler reads these attributes),
a message for the person who asked, and optional ``details``.
"""

from __future__ import annotations

from core.api_errors import DomainError


class GamesError(DomainError):
    """Base of every refusal of a games service; the message is for the person who asked."""

    code = "games_error"
    http_status = 400


class DealStateError(GamesError):
    """The deal is not in a state that allows this operation."""

    code = "deal_state"


class NotFoundError(GamesError):
    """No such challenge or attempt, or not one the asker may see."""

    code = "not_found"
    http_status = 404


class ChallengeNotOpenError(GamesError):
    """A ranked attempt can be started only on the day of its challenge."""

    code = "challenge_not_open"
    http_status = 409


class NoPracticeDealError(GamesError):
    """The practice pool has no verified deal (of the asked variant) yet."""

    code = "no_practice_deal"
    http_status = 503


class AttemptOverError(GamesError):
    """The attempt has ended (won, resigned, or closed with its day): no more actions."""

    code = "attempt_over"
    http_status = 409


class NotStartedError(GamesError):
    """A race's attempt takes no action before the race's start signal."""

    code = "not_started"
    http_status = 409


class OffsetConflictError(GamesError):
    """A batch that does not start at the end of the stored log and is not a retry."""

    code = "offset_conflict"
    http_status = 409


class ActionRefusedError(GamesError):
    """An action of a batch is not valid notation (invalid_action) or the rules refuse it
    (illegal_action); nothing of the batch was stored."""

    code = "illegal_action"
    http_status = 400


class HintsNotAllowedError(GamesError):
    """Hints are for practice attempts only."""

    code = "hints_not_allowed"
    http_status = 403


class HintBudgetSpentError(GamesError):
    """The practice game has had its HINTS_PER_GAME hints."""

    code = "hint_budget_spent"
    http_status = 409


class HintsBusyError(GamesError):
    """Every hint search slot of this server process is taken."""

    code = "hints_busy"
    http_status = 503


class DayNotOverError(GamesError):
    """Other players' logs become public only once the day is over."""

    code = "day_not_over"
    http_status = 403


class AttemptNotOverError(GamesError):
    """A replay opens only once the attempt has ended (won, resigned or closed with its day)."""

    code = "attempt_not_over"
    http_status = 403


class BadStepError(GamesError):
    """A replay's ``step`` is not a whole number from 0 to the number of actions."""

    code = "bad_step"
    http_status = 400


class NotSafeToFinishError(GamesError):
    """Auto-complete plays on only once every card is face up and the stock is dealt."""

    code = "not_safe"
    http_status = 409


class NoFinishFoundError(GamesError):
    """Auto-complete found no winning line from the position (proven none, or out of time)."""

    code = "no_finish_found"
    http_status = 409


class NoAnalysisError(GamesError):
    """No analysis of this attempt was asked for yet (GET before POST)."""

    code = "no_analysis"
    http_status = 404
