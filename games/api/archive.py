"""The archive of past dailies: a calendar month per variant, and starting a practice
attempt at a past day's deal."""

from __future__ import annotations

import datetime as dt
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
from games.api.schema import AttemptSerializer
from games.archive import archive_month, latest_archive_month
from games.engine import VARIANTS
from games.selectors import attempt_detail
from games.services.archive import attempt_start_archive


class MonthField(serializers.Field[dt.date, str, str, Any]):
    """A calendar month written YYYY-MM (its first day inside)."""

    default_error_messages = {"invalid": "A month is written YYYY-MM, e.g. 2026-11."}

    def to_internal_value(self, data: Any) -> dt.date:
        try:
            return dt.datetime.strptime(str(data), "%Y-%m").date()
        except ValueError:
            self.fail("invalid")
            raise  # pragma: no cover - fail() raises

    def to_representation(self, value: dt.date) -> str:
        return f"{value.year:04d}-{value.month:02d}"


class ArchiveDaySerializer(serializers.Serializer[Any]):
    challenge_id = serializers.IntegerField()
    date = serializers.DateField()
    difficulty = serializers.CharField(allow_null=True)
    par = serializers.IntegerField(allow_null=True)
    finished = serializers.IntegerField(help_text="Attempts on the day's board.")


class ArchiveMonthApi(APIView):
    """One month of the archive: the variant's dailies whose day is over, oldest first."""

    class InputSerializer(serializers.Serializer[Any]):
        variant = serializers.ChoiceField(
            choices=list(VARIANTS),
            required=False,
            help_text="Default: the first of the site's daily variants (DAILY_VARIANTS).",
        )
        month = MonthField(required=False, help_text="YYYY-MM; default: the latest past daily's.")

        class Meta:
            ref_name = "ArchiveMonthQuery"

    class OutputSerializer(serializers.Serializer[Any]):
        variant = serializers.CharField()
        month = serializers.CharField(help_text="YYYY-MM")
        previous = serializers.CharField(
            allow_null=True, help_text="The nearest earlier month with a past daily (YYYY-MM)."
        )
        next = serializers.CharField(
            allow_null=True, help_text="The nearest later month with a past daily (YYYY-MM)."
        )
        days = ArchiveDaySerializer(many=True)

        class Meta:
            ref_name = "ArchiveMonth"

    @extend_schema(
        operation_id="archive_month",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, 400: BAD_INPUT},
    )
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        variant = query.validated_data.get("variant") or settings.DAILY_VARIANTS[0]
        month = query.validated_data.get("month") or latest_archive_month(variant)
        return Response(render(self.OutputSerializer, archive_month(variant, month)))


class ArchiveStartApi(APIView):
    """Play a past daily again as practice: unranked, never on that day's board, no streak.

    Only a day that is over: today's and future challenges are 404, as an unknown id is.
    """

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"

    @extend_schema(
        operation_id="archive_start",
        request=None,
        responses={
            201: AttemptSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: error_response("challenge_not_open: the day's deal has been withdrawn."),
            429: THROTTLED,
        },
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        attempt = attempt_start_archive(player=request.user, challenge_id=challenge_id)
        return Response(
            render(AttemptSerializer, attempt_detail(attempt)), status=status.HTTP_201_CREATED
        )
