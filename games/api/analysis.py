"""The analysis of a finished game whose cards are public (games/services/analysis.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.api.common import SCOPED, SIGNED_IN, THROTTLED, UNAUTHENTICATED
from games.api.rendering import render
from games.models import AttemptAnalysis
from games.selectors import analysis_alternative_states, analysis_lost_by
from games.services.analysis import analysis_for, analysis_request

NOT_FOUND_OR_SEALED = error_response(
    "not_found: no such attempt, not one the asker may replay, or its cards are not public "
    "yet (the same answer in each case); no_analysis (GET): never asked."
)
NOT_OVER = error_response("attempt_not_over: only a finished game can be analysed.")


class AnalysisPositionSerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField(help_text="The position after this many actions.")
    status = serializers.ChoiceField(choices=["solved", "unsolvable", "unknown"])
    moves_to_win = serializers.IntegerField(allow_null=True)
    nodes = serializers.IntegerField(
        allow_null=True,
        help_text="Positions searched to decide it (a proof's size when unsolvable); null in "
        "an analysis stored before it was recorded.",
    )
    budget = serializers.IntegerField(
        allow_null=True,
        help_text="Positions each phase of the search could have for it (0: the analysis's "
        "budget was spent before it); unknown means it ran out. Null when not recorded.",
    )


class LostAtSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="0-based index of the losing action in the log.")
    action = serializers.CharField()
    proven = serializers.BooleanField(
        default=False,
        help_text="True when the position after the action was proven lost; false when no "
        "win was found there within the budget.",
    )


class LostBySerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(
        help_text="0-based index in the log of the earliest action after which the game was "
        "proven lost."
    )
    action = serializers.CharField()
    nodes = serializers.IntegerField(
        allow_null=True,
        help_text="The proof's size (positions searched; 0: covered by the "
        "proofs of later positions).",
    )


class SavedSerializer(serializers.Serializer[Any]):
    played = serializers.IntegerField()
    shortest = serializers.IntegerField()
    actions = serializers.IntegerField(help_text="played - shortest")


class AnalysisSerializer(serializers.Serializer[Any]):
    attempt = serializers.IntegerField(source="attempt_id")
    status = serializers.ChoiceField(choices=AttemptAnalysis.Status.values)
    planned = serializers.IntegerField()
    done = serializers.SerializerMethodField()
    positions = AnalysisPositionSerializer(many=True)
    lost_at = LostAtSerializer(allow_null=True)
    lost_by = serializers.SerializerMethodField(
        help_text="The earliest action after which the game was proven lost (the position "
        "after it proven lost, after every position found winnable): lost_at's action when "
        "that is proven, a later one when not (a proven bound on where the game was lost); "
        "null when none was proven, for a won game and for a deal never winnable."
    )
    alternative = serializers.ListField(child=serializers.CharField())
    alternative_states = serializers.SerializerMethodField(
        help_text="The whole position before the losing action, then after each action of "
        "the alternative (state JSON, every card shown)."
    )
    saved = SavedSerializer(allow_null=True)
    worker_seconds = serializers.FloatField()
    counts = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "AttemptAnalysis"

    def get_alternative_states(self, analysis: AttemptAnalysis) -> list[dict[str, Any]]:
        return analysis_alternative_states(analysis)

    @extend_schema_field(LostBySerializer(allow_null=True))
    def get_lost_by(self, analysis: AttemptAnalysis) -> dict[str, Any] | None:
        return analysis_lost_by(analysis)

    def get_done(self, analysis: AttemptAnalysis) -> int:
        return len(analysis.positions)

    def get_counts(self, analysis: AttemptAnalysis) -> dict[str, int]:
        counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
        for position in analysis.positions:
            counts[position["status"]] = counts.get(position["status"], 0) + 1
        return counts


class AttemptAnalysisApi(APIView):
    """POST asks for the analysis (202 while pending or running, 200 once done); GET reads it."""

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "hints"

    def get_throttles(self) -> list[Any]:
        # Reading is cheap and the replay page polls it while the job runs: asks only.
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        operation_id="attempt_analysis_read",
        responses={
            200: AnalysisSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND_OR_SEALED,
            403: NOT_OVER,
            429: THROTTLED,
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        analysis = analysis_for(attempt_id=attempt_id, player=request.user)
        return Response(render(AnalysisSerializer, analysis))

    @extend_schema(
        operation_id="attempt_analysis_ask",
        request=None,
        responses={
            200: AnalysisSerializer,
            202: AnalysisSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND_OR_SEALED,
            403: NOT_OVER,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        analysis = analysis_request(attempt_id=attempt_id, player=request.user)
        done = analysis.status == AttemptAnalysis.Status.DONE
        return Response(render(AnalysisSerializer, analysis), status=200 if done else 202)
