"""The leaderboards' REST API: one class per operation; anyone may read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.models import VARIANT_CHOICES
from games.selectors import challenge_for_viewing
from leaderboards import selectors

F = TypeVar("F", bound=Callable[..., Any])

# The deepest page of a board one may ask for: past any real board, and far inside
# PostgreSQL's bigint (an OFFSET beyond it was a DataError, a 500).
MAX_OFFSET = 1_000_000


def board_schema(
    operation_id: str, query: type[Any], answer: type[Any], not_found: str | None = None
) -> Callable[[F], F]:
    """The schema of a board read: its query parameters, its answer, and the errors a bad
    parameter (400) or, where the path names one, an unknown challenge or player (404) get."""
    responses: dict[int, Any] = {
        200: answer,
        400: error_response("invalid: a query parameter is not valid; details name it."),
    }
    if not_found:
        responses[404] = error_response(f"not_found: {not_found}")
    return extend_schema(operation_id=operation_id, parameters=[query], responses=responses)


class BoardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="won first, then runs home, cards turned up, score, elapsed and end "
        "(docs/rules.md); rows equal in all of them share a rank"
    )
    username = serializers.CharField()
    score = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField()
    action_count = serializers.IntegerField()
    won = serializers.BooleanField()
    runs_completed = serializers.IntegerField(help_text="complete foundations at the end")
    cards_turned_up = serializers.IntegerField(
        help_text="the deal's face-down tableau cards no longer face down at the end "
        "(of the challenge's face_down_dealt)"
    )
    ended_at = serializers.DateTimeField()
    attempt_id = serializers.IntegerField()


class CountsSerializer(serializers.Serializer):
    playing = serializers.IntegerField(help_text="open ranked attempts")
    finished = serializers.IntegerField(help_text="finished, counted (not voided) attempts")


class ChallengeRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    date = serializers.DateField()
    variant = serializers.CharField()
    face_down_dealt = serializers.IntegerField(
        help_text="the deal's face-down tableau cards: what cards_turned_up counts against"
    )


class ChallengeBoardApi(APIView):
    """The daily board of one challenge: the top, the counts, and the caller's own row."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)
        offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0)

    @extend_schema_serializer(component_name="ChallengeBoard")
    class OutputSerializer(serializers.Serializer):
        challenge = ChallengeRefSerializer()
        limit = serializers.IntegerField()
        offset = serializers.IntegerField()
        counts = CountsSerializer()
        top = BoardRowSerializer(many=True)
        me = BoardRowSerializer(
            allow_null=True, help_text="the signed-in player's row, even outside the top"
        )

    @board_schema("leaderboard_challenge", InputSerializer, OutputSerializer, "no such challenge.")
    def get(self, request: Request, challenge_id: int) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        limit, offset = params.validated_data["limit"], params.validated_data["offset"]
        # A challenge whose day has not begun does not exist yet, for players (404).
        challenge = challenge_for_viewing(challenge_id)
        me = (
            selectors.player_rank(challenge, request.user)
            if request.user.is_authenticated
            else None
        )
        body: dict[str, Any] = {
            "challenge": selectors.challenge_ref(challenge),
            "limit": limit,
            "offset": offset,
            "counts": selectors.players_counts(challenge),
            "top": [asdict(row) for row in selectors.leaderboard_for_day(challenge, limit, offset)],
            "me": asdict(me) if me else None,
        }
        return Response(self.OutputSerializer(body).data)


class AllTimeRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    total_score = serializers.IntegerField()
    days = serializers.IntegerField(help_text="days won in the window (a daily won that day)")
    total_seconds = serializers.FloatField(help_text="elapsed time of those wins, added up")


class AllTimeBoardApi(APIView):
    """Won dailies over the last ``days`` days: each day's best winning score, summed
    (docs/rules.md: a day not won counts nothing; ties by days won, then their total time)."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        days = serializers.IntegerField(min_value=1, max_value=365, default=30)
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)

    @extend_schema_serializer(component_name="AllTimeBoard")
    class OutputSerializer(serializers.Serializer):
        days = serializers.IntegerField()
        rows = AllTimeRowSerializer(many=True)

    @board_schema("leaderboard_alltime", InputSerializer, OutputSerializer)
    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        days = params.validated_data["days"]
        rows = selectors.alltime_board(days=days, limit=params.validated_data["limit"])
        return Response(self.OutputSerializer({"days": days, "rows": rows}).data)


class StreakRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="equal streaks share a rank")
    username = serializers.CharField()
    current = serializers.IntegerField(help_text="consecutive UTC days won, up to today")
    last_won = serializers.DateField()


class StreakBoardApi(APIView):
    """Players by their current streak of won dailies of one variant."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        variant = serializers.ChoiceField(choices=VARIANT_CHOICES, default="astrocyte")
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)

    @extend_schema_serializer(component_name="StreakBoard")
    class OutputSerializer(serializers.Serializer):
        variant = serializers.CharField()
        rows = StreakRowSerializer(many=True)

    @board_schema("leaderboard_streaks", InputSerializer, OutputSerializer)
    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        variant = params.validated_data["variant"]
        rows = selectors.streak_board(variant, limit=params.validated_data["limit"])
        return Response(self.OutputSerializer({"variant": variant, "rows": rows}).data)
