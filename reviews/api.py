"""Staff's review queue: `GET /api/v1/admin/reviews/?challenge=<id>` (staff only)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from reviews.models import Review


class EvidenceSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField(help_text="scout_link, signups_close, new_account or pace")
    text = serializers.CharField()
    attempt_ids = serializers.ListField(child=serializers.IntegerField())
    account_ids = serializers.ListField(child=serializers.IntegerField())


class ReviewSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    attempt_id = serializers.IntegerField()
    player = serializers.CharField(source="attempt.player.username")
    player_id = serializers.IntegerField(source="attempt.player_id")
    severity = serializers.CharField(source="get_severity_display")
    status = serializers.CharField()
    voided = serializers.BooleanField(source="attempt.voided")
    evidence = EvidenceSerializer(many=True)
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "Review"


class ReviewQuerySerializer(serializers.Serializer[Any]):
    challenge = serializers.IntegerField(min_value=1)


class ReviewListApi(APIView):
    """The reviews of one challenge's attempts, most severe first, with every piece of
    evidence; staff only (a player gets 403, a request not signed in 401)."""

    permission_classes = [IsAdminUser]

    class OutputSerializer(serializers.Serializer[Any]):
        challenge = serializers.IntegerField()
        reviews = ReviewSerializer(many=True)

        class Meta:
            ref_name = "ReviewQueue"

    @extend_schema(
        operation_id="admin_reviews",
        parameters=[OpenApiParameter("challenge", int, required=True)],
        responses={
            200: OutputSerializer,
            400: error_response("invalid: details name the query parameter."),
            401: error_response("Not signed in (session or token)."),
            403: error_response("Staff only."),
        },
    )
    def get(self, request: Request) -> Response:
        query = ReviewQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        challenge_id = query.validated_data["challenge"]
        reviews = Review.objects.filter(attempt__challenge_id=challenge_id).select_related(
            "attempt__player"
        )
        body = {"challenge": challenge_id, "reviews": ReviewSerializer(reviews, many=True).data}
        return Response(body)
