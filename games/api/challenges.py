"""Challenges: today's dailies, one challenge, and starting attempts."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.api.common import BAD_INPUT, NOT_FOUND, SCOPED, SIGNED_IN, THROTTLED, UNAUTHENTICATED
from games.api.rendering import render
from games.api.schema import AttemptSerializer, ChallengeSerializer
from games.engine import VARIANTS
from games.selectors import (
    attempt_detail,
    challenge_detail,
    challenge_for_viewing,
    challenge_public_logs,
    challenges_today,
)
from games.services.attempts import attempt_start_practice, attempt_start_ranked


class PreparingSerializer(serializers.Serializer[Any]):
    variant = serializers.CharField()
    phase = serializers.ChoiceField(choices=["waiting", "queued", "proving", "shortening"])
    seconds = serializers.FloatField(
        allow_null=True, help_text="Since its verification began (null until it has)."
    )
    positions = serializers.IntegerField(
        allow_null=True, help_text="Positions the solver has searched in this phase."
    )

    class Meta:
        ref_name = "DailyPreparing"


class ChallengesTodayApi(APIView):
    """Today's daily challenges (UTC), one per daily variant that has a verified deal."""

    class OutputSerializer(serializers.Serializer[Any]):
        date = serializers.DateField()
        seconds_left = serializers.IntegerField()
        challenges = ChallengeSerializer(many=True)
        preparing = PreparingSerializer(
            many=True,
            help_text="Today's dailies not open yet: how far the solver has got proving them.",
        )
        message = serializers.CharField(
            allow_null=True,
            help_text="Set when a daily of today is not open yet (being proven, or none).",
        )

        class Meta:
            ref_name = "ChallengesToday"

    @extend_schema(operation_id="challenges_today", responses={200: OutputSerializer})
    def get(self, request: Request) -> Response:
        return Response(render(self.OutputSerializer, challenges_today(request.user)))


class ChallengeDetailApi(APIView):
    """One challenge of today or of a past day; past ones reveal seed, nonce, deal, solution."""

    @extend_schema(
        operation_id="challenge_detail",
        responses={200: ChallengeSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_for_viewing(challenge_id)
        return Response(render(ChallengeSerializer, challenge_detail(challenge, request.user)))


class AttemptLogSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    elapsed_seconds = serializers.FloatField(allow_null=True)
    action_count = serializers.IntegerField()
    won = serializers.BooleanField()
    runs_completed = serializers.IntegerField()
    cards_turned_up = serializers.IntegerField(
        help_text="the deal's face-down tableau cards no longer face down at the end"
    )
    end_reason = serializers.CharField()
    log = serializers.ListField(child=serializers.CharField())
    action_times = serializers.ListField(child=serializers.FloatField())

    class Meta:
        ref_name = "PublicAttemptLog"


class ChallengeAttemptsApi(APIView):
    """Once the day is over: every counted attempt's log and server times, to re-check scores."""

    class OutputSerializer(serializers.Serializer[Any]):
        challenge_id = serializers.IntegerField()
        date = serializers.DateField()
        variant = serializers.CharField()
        face_down_dealt = serializers.IntegerField(
            help_text="the deal's face-down tableau cards: what cards_turned_up counts against"
        )
        attempts = AttemptLogSerializer(
            many=True, help_text="in the board's order (docs/rules.md, 'How boards rank')"
        )

        class Meta:
            ref_name = "ChallengeAttempts"

    @extend_schema(
        operation_id="challenge_attempts",
        responses={
            200: OutputSerializer,
            403: error_response("day_not_over: logs are public once the day is over."),
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_for_viewing(challenge_id)
        return Response(render(self.OutputSerializer, challenge_public_logs(challenge)))


class ChallengeStartApi(APIView):
    """Start (or get back) the player's one ranked attempt; the server's clock starts now."""

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"

    @extend_schema(
        operation_id="challenge_start",
        request=None,
        responses={
            201: AttemptSerializer,
            200: AttemptSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: error_response("challenge_not_open: the challenge is not today's."),
            429: THROTTLED,
        },
        description="201 with a new attempt; 200 with the existing one on a second start.",
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        attempt, created = attempt_start_ranked(player=request.user, challenge_id=challenge_id)
        return Response(
            render(AttemptSerializer, attempt_detail(attempt)),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


def practice_variant(value: str) -> None:
    """Refuses a variant whose practice pool is not kept (PRACTICE_VARIANTS): its deals
    would never come."""
    if value not in settings.PRACTICE_VARIANTS:
        kept = ", ".join(settings.PRACTICE_VARIANTS) or "none"
        raise serializers.ValidationError(
            f"No practice deals are prepared for {value} on this server (kept: {kept})."
        )


class PracticeStartApi(APIView):
    """Start an unranked attempt on a random verified deal of the practice pool."""

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"

    class InputSerializer(serializers.Serializer[Any]):
        variant = serializers.ChoiceField(
            choices=list(VARIANTS), required=False, validators=[practice_variant]
        )

        class Meta:
            ref_name = "PracticeStartRequest"

    @extend_schema(
        operation_id="practice_start",
        request=InputSerializer,
        responses={
            201: AttemptSerializer,
            400: BAD_INPUT,
            401: UNAUTHENTICATED,
            429: THROTTLED,
            503: error_response(
                "no_practice_deal: the pool has no verified deal free yet (being prepared, "
                "or every one in a running race)."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        attempt = attempt_start_practice(
            player=request.user, variant=data.validated_data.get("variant")
        )
        return Response(
            render(AttemptSerializer, attempt_detail(attempt)), status=status.HTTP_201_CREATED
        )
