"""The archive's rank: where the caller's practice game of a past daily would have ranked."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.selectors import attempt_for_player
from leaderboards.api import ChallengeRefSerializer
from leaderboards.archive import would_rank


class WouldRankApi(APIView):
    """The rank the caller's finished archive game would have had on its day's board.

    Counted from the day's scores with the board's ranking; the game is not on the board
    and never will be. Another player's attempt is 404.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="WouldRank")
    class OutputSerializer(serializers.Serializer):
        attempt_id = serializers.IntegerField()
        challenge = ChallengeRefSerializer()
        board_size = serializers.IntegerField(help_text="Counted attempts on the day's board.")
        rank = serializers.IntegerField(
            allow_null=True, help_text="null: a game ended with no action is not ranked."
        )
        of = serializers.IntegerField(help_text="The board's size plus this game.")
        message = serializers.CharField()

    @extend_schema(
        operation_id="archive_would_rank",
        responses={
            200: OutputSerializer,
            401: error_response("Not signed in (session or token)."),
            403: error_response("attempt_not_over: the rank is known once the game ends."),
            404: error_response(
                "not_found: no such attempt of the caller's, or not a practice game of a past "
                "daily."
            ),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_for_player(attempt_id, request.user)
        body: dict[str, Any] = would_rank(attempt)
        return Response(self.OutputSerializer(body).data)
