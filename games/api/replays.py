"""Replays: the position after the first k actions of a finished attempt, or of a closed
day's solution. Every position is recomputed by the engine from the deal and the stored
actions; nothing else is trusted. Until a daily's day is over its owner sees each position
as they saw it in play (face-down and stock cards null)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.api.common import NOT_FOUND
from games.api.rendering import render
from games.api.schema import StateViewSerializer
from games.errors import BadStepError
from games.selectors import (
    attempt_for_replay,
    attempt_replay_step,
    challenge_for_viewing,
    solution_replay_step,
)
from games.services.attempts import attempt_close_if_day_over

STEP = OpenApiParameter(
    "step",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    description="How many actions have been played: 0 (the deal, the default) to `steps`.",
)
BAD_STEP = error_response("bad_step: step is not a whole number from 0 to steps (details).")


def parse_step(raw: str | None, steps: int) -> int:
    """``?step=`` as a whole number (absent means 0, the deal); the range is checked by the
    selector, which knows the log (``check_step``)."""
    if raw is None or raw == "":
        return 0
    try:
        return int(raw)
    except ValueError:
        raise BadStepError(
            f"step must be a whole number from 0 to {steps}, not {raw[:20]!r}.",
            details={"step": raw[:20], "steps": steps},
        ) from None


class ReplayStepSerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField(help_text="Actions played to reach this position.")
    steps = serializers.IntegerField(help_text="Actions in the whole log.")
    action = serializers.CharField(
        allow_null=True, help_text="The action just played (log[step-1]); null at step 0."
    )
    time = serializers.FloatField(
        allow_null=True, help_text="Server time of that action (s from the start); null at 0."
    )
    state = StateViewSerializer(
        help_text=(
            "The position after `step` actions: whole when `cards_revealed`, else as the "
            "player saw it (face-down and stock cards null)."
        )
    )
    cards_revealed = serializers.BooleanField(
        help_text=(
            "Whether `state` shows every card: a daily's once its day is over, a practice "
            "deal's once the attempt is over."
        )
    )
    deals_left = serializers.IntegerField()
    runs_completed = serializers.IntegerField()
    won = serializers.BooleanField()


class AttemptReplayApi(APIView):
    """A finished attempt, position by position: the owner's at once (as they saw it until
    the deal's cards are public), anyone's counted ranked game once its day is over."""

    class OutputSerializer(ReplayStepSerializer):
        attempt_id = serializers.IntegerField()
        challenge_id = serializers.IntegerField(allow_null=True)

        class Meta:
            ref_name = "AttemptReplayStep"

    @extend_schema(
        operation_id="attempt_replay",
        parameters=[STEP],
        responses={
            200: OutputSerializer,
            400: BAD_STEP,
            403: error_response("attempt_not_over: the replay opens when the attempt ends."),
            404: error_response(
                "No such attempt, or another player's before its day is over (or voided)."
            ),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_close_if_day_over(attempt=attempt_for_replay(attempt_id, request.user))
        step = parse_step(request.query_params.get("step"), len(attempt.log))
        return Response(render(self.OutputSerializer, attempt_replay_step(attempt, step)))


class ChallengeSolutionApi(APIView):
    """The solver's stored solution of a closed day's deal, position by position."""

    class OutputSerializer(ReplayStepSerializer):
        challenge_id = serializers.IntegerField()

        class Meta:
            ref_name = "SolutionReplayStep"

    @extend_schema(
        operation_id="challenge_solution",
        parameters=[STEP],
        responses={
            200: OutputSerializer,
            400: BAD_STEP,
            403: error_response("day_not_over: the solution is public once the day is over."),
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_for_viewing(challenge_id)
        step = parse_step(request.query_params.get("step"), len(challenge.deal.solution or []))
        return Response(render(self.OutputSerializer, solution_replay_step(challenge, step)))
