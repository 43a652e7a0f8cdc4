"""A player's page in the API: their stats, streaks, ratings, calendar, best ranks and recent
replays (anyone may read a public page), and the player's own choice to hide it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from core.strict_fields import StrictBooleanField
from games.models import VARIANT_CHOICES
from leaderboards import player_page, selectors
from leaderboards.api import board_schema
from leaderboards.profiles import player_profile_update, profile_hidden, visible_player
from leaderboards.ratings.selectors import player_ratings, rating_history


class ScoreBucketSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField(allow_null=True, help_text="inclusive; null: no upper end")
    count = serializers.IntegerField()


class RunsBucketSerializer(serializers.Serializer):
    runs_completed = serializers.IntegerField()
    count = serializers.IntegerField()


class PlayerStatsSerializer(serializers.Serializer):
    variant = serializers.CharField(allow_null=True)
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True)
    best_score = serializers.IntegerField(allow_null=True)
    average_score = serializers.FloatField(allow_null=True)
    score_histogram = ScoreBucketSerializer(many=True)
    runs_histogram = RunsBucketSerializer(many=True)


class StreakSerializer(serializers.Serializer):
    variant = serializers.CharField()
    current = serializers.IntegerField()
    best = serializers.IntegerField()
    last_won = serializers.DateField(allow_null=True)


class CalendarDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    variant = serializers.CharField()
    won = serializers.BooleanField()
    score = serializers.IntegerField()


class ReplayRefSerializer(serializers.Serializer):
    attempt_id = serializers.IntegerField(help_text="/api/v1/attempts/{id}/replay/")
    challenge_id = serializers.IntegerField()
    date = serializers.DateField()
    variant = serializers.CharField()
    won = serializers.BooleanField()
    score = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField()


class BestRankSerializer(serializers.Serializer):
    date = serializers.DateField()
    variant = serializers.CharField()
    challenge_id = serializers.IntegerField()
    rank = serializers.IntegerField()
    players = serializers.IntegerField(help_text="ranked players on that day's board")


class RatingDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    challenge_id = serializers.IntegerField()
    rank = serializers.IntegerField()
    players = serializers.IntegerField(help_text="ranked players on that day's board")
    rating_before = serializers.FloatField()
    rating = serializers.FloatField(help_text="shown rating after the day: mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()


class PlayerRatingSerializer(serializers.Serializer):
    variant = serializers.CharField()
    rating = serializers.FloatField(help_text="shown rating: mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rated_days = serializers.IntegerField()
    last_change = RatingDaySerializer(allow_null=True)


class PlayerStatsApi(APIView):
    """A player's page: ranked dailies' stats (of one variant or all), streaks, ratings and
    their history, the days played, the best ranks and the recent replays."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        variant = serializers.ChoiceField(choices=VARIANT_CHOICES, required=False)

    @extend_schema_serializer(component_name="PlayerLeaderboardStats")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        hidden = serializers.BooleanField(
            help_text="the page is hidden from others (only its owner ever sees true)"
        )
        stats = PlayerStatsSerializer()
        streaks = StreakSerializer(many=True)
        ratings = PlayerRatingSerializer(many=True, help_text="the variants rated so far")
        rating_history = serializers.DictField(
            child=RatingDaySerializer(many=True),
            help_text="per variant asked for, each rated day in date order",
        )
        calendar = CalendarDaySerializer(many=True, help_text="ranked dailies of the last year")
        best_ranks = BestRankSerializer(many=True)
        recent_replays = ReplayRefSerializer(many=True, help_text="days that are over only")

    @board_schema(
        "leaderboard_player",
        InputSerializer,
        OutputSerializer,
        "no player of that name, or their page is hidden (the same answer).",
    )
    def get(self, request: Request, username: str) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        variant = params.validated_data.get("variant")
        player = visible_player(username, request.user)
        variants = [variant] if variant else list(settings.DAILY_VARIANTS)
        body = {
            "username": player.get_username(),
            "hidden": profile_hidden(player),
            "stats": selectors.player_stats(player, variant),
            "streaks": [selectors.streaks(player, v) for v in variants],
            "ratings": [r for r in player_ratings(player) if r["variant"] in variants],
            "rating_history": {v: rating_history(player, v) for v in variants},
            "calendar": player_page.days_played(player, variant),
            "best_ranks": player_page.best_ranks(player, variants),
            "recent_replays": player_page.recent_replays(player, variant),
        }
        return Response(self.OutputSerializer(body).data)


class PlayerProfileApi(APIView):
    """The signed-in player's page settings: whether others may see it."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        hidden = StrictBooleanField(
            help_text="true: others get a 404 for the page, as for an unknown name"
        )

    @extend_schema_serializer(component_name="PlayerProfile")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        hidden = serializers.BooleanField()

    def _answer(self, player: Any) -> Response:
        body = {"username": player.get_username(), "hidden": profile_hidden(player)}
        return Response(self.OutputSerializer(body).data)

    @extend_schema(
        operation_id="player_profile",
        responses={200: OutputSerializer, 403: error_response("not signed in.")},
    )
    def get(self, request: Request) -> Response:
        return self._answer(request.user)

    @extend_schema(
        operation_id="player_profile_update",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: error_response("invalid: `hidden` is missing or not a boolean."),
            403: error_response("not signed in."),
        },
    )
    def put(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        player_profile_update(player=request.user, hidden=params.validated_data["hidden"])
        return self._answer(request.user)
