"""The ratings in the API: the rating board of a variant, and what a day did to the caller's
rating (the play page's result panel). Anyone may read the board."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.errors import NotFoundError
from games.models import VARIANT_CHOICES, Attempt
from games.selectors import attempt_for_player
from leaderboards.api import board_schema
from leaderboards.ratings import selectors

NOT_RATED_YET = "Your rating updates when the day closes (00:00 UTC)."


class RatingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="equal shown ratings share a rank")
    username = serializers.CharField()
    rating = serializers.FloatField(help_text="the shown rating: mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rated_days = serializers.IntegerField()


class RatingBoardApi(APIView):
    """The rating board of one variant: players with at least 3 rated days, best first."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        variant = serializers.ChoiceField(choices=VARIANT_CHOICES, default="astrocyte")
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)

    @extend_schema_serializer(component_name="RatingBoard")
    class OutputSerializer(serializers.Serializer):
        variant = serializers.CharField()
        min_rated_days = serializers.IntegerField()
        rows = RatingRowSerializer(many=True)

    @board_schema("leaderboard_ratings", InputSerializer, OutputSerializer)
    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        variant = params.validated_data["variant"]
        body = {
            "variant": variant,
            "min_rated_days": selectors.BOARD_MIN_RATED_DAYS,
            "rows": selectors.rating_board(variant, limit=params.validated_data["limit"]),
        }
        return Response(self.OutputSerializer(body).data)


class CurrentRatingSerializer(serializers.Serializer):
    rating = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rated_days = serializers.IntegerField()


class RatingChangeSerializer(serializers.Serializer):
    date = serializers.DateField()
    challenge_id = serializers.IntegerField()
    rank = serializers.IntegerField()
    players = serializers.IntegerField()
    rating_before = serializers.FloatField()
    rating = serializers.FloatField()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()


class AttemptRatingApi(APIView):
    """The caller's rating in the variant of their ranked daily attempt and, once that day
    has been rated (after it closed), the change it brought. Before: ``rated`` false and a
    message that the rating updates when the day closes. Another's attempt, or one that is
    not a ranked daily, is 404."""

    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="AttemptRating")
    class OutputSerializer(serializers.Serializer):
        attempt_id = serializers.IntegerField()
        challenge_id = serializers.IntegerField()
        variant = serializers.CharField()
        rated = serializers.BooleanField(help_text="the attempt's day has been rated")
        current = CurrentRatingSerializer(
            allow_null=True, help_text="the caller's rating now (null: never rated)"
        )
        change = RatingChangeSerializer(
            allow_null=True,
            help_text="what this day did (null until it is rated, or if not on its board)",
        )
        message = serializers.CharField()

    @extend_schema(
        operation_id="leaderboard_attempt_rating",
        responses={
            200: OutputSerializer,
            401: error_response("Not signed in (session or token)."),
            404: error_response("not_found: no ranked daily attempt of the caller's by that id."),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_for_player(attempt_id, request.user)
        challenge = attempt.challenge
        if attempt.kind != Attempt.Kind.RANKED or challenge is None:
            raise NotFoundError("This attempt is not a ranked daily of yours.")
        rated = selectors.day_rated(challenge.pk)
        change = selectors.rating_change(request.user, challenge.pk) if rated else None
        current = selectors.rating_of(request.user, challenge.variant)
        body: dict[str, Any] = {
            "attempt_id": attempt.pk,
            "challenge_id": challenge.pk,
            "variant": challenge.variant,
            "rated": rated,
            "current": current,
            "change": change,
            "message": _message(rated, change),
        }
        return Response(self.OutputSerializer(body).data)


def _message(rated: bool, change: dict[str, Any] | None) -> str:
    if not rated:
        return NOT_RATED_YET
    if change is None:
        return "This day is rated; your attempt was not on its board (no action), so no change."
    return (
        f"Rating {change['rating_before']:.1f} → {change['rating']:.1f} "
        f"(rank {change['rank']} of {change['players']})."
    )
