"""A played batch's answer: the HTTP status and the JSON body, the same on every transport.

200 and ``ActionsResponseSerializer``'s body; otherwise the API's one error shape
(``core.api_errors``): 400 ``invalid`` (details by field), ``invalid_action`` or
``illegal_action``; 404; 409 ``offset_conflict`` or ``attempt_over``; 429 ``throttled``
(details.wait: whole seconds, rounded up as DRF's ``Throttled`` says it); 503
``unavailable`` (here for the play socket, whose held database connection died twice
running; over HTTP Django answers a database that cannot be reached: core/http_errors.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import Throttled

from core.api_errors import DomainError, error_body
from games.api.rendering import render
from games.api.schema import ScoreSerializer, StateViewSerializer
from games.services.batches import Batch


class ActionsResponseSerializer(serializers.Serializer[Any]):
    class RevealedSerializer(serializers.Serializer[Any]):
        pile = serializers.CharField(help_text="Where the card turned face up, e.g. t3.")
        card = serializers.CharField()

    offset = serializers.IntegerField(help_text="The new length of the log.")
    action_count = serializers.IntegerField()
    state = StateViewSerializer()
    revealed = RevealedSerializer(many=True)
    legal_actions = serializers.ListField(child=serializers.CharField())
    won = serializers.BooleanField()
    over = serializers.BooleanField()
    deals_left = serializers.IntegerField()
    runs_completed = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField(help_text="Server time of this batch.")
    score = ScoreSerializer(help_text="Provisional; final when won.")

    class Meta:
        ref_name = "AttemptActionsResponse"


@dataclass(frozen=True, slots=True)
class PlayAnswer:
    """What a transport sends back: ``status`` (HTTP's) and ``body`` (JSON-ready)."""

    status: int
    body: Any

    @property
    def retry_after(self) -> int | None:
        """The seconds a throttled client waits (the HTTP ``Retry-After``), else None."""
        if self.status != 429:
            return None
        return int(self.body["error"]["details"]["wait"]) or None


def accepted(batch: Batch) -> PlayAnswer:
    return PlayAnswer(200, render(ActionsResponseSerializer, batch))


def invalid(details: Any) -> PlayAnswer:
    return PlayAnswer(400, error_body("invalid", "The request is not valid.", details))


def throttled(wait: float) -> PlayAnswer:
    details = {"wait": math.ceil(wait)}
    return PlayAnswer(429, error_body("throttled", str(Throttled(wait).detail), details))


def refused(error: DomainError) -> PlayAnswer:
    """A service's refusal, as the API's exception handler answers it."""
    return PlayAnswer(error.http_status, error_body(error.code, error.message, error.details))


def unavailable() -> PlayAnswer:
    message = "The database cannot be reached: send the same batch again."
    return PlayAnswer(503, error_body("unavailable", message))
