"""The reminders' API, for the signed-in player: the server's public key and their
choices (GET/PUT /api/v1/reminders/), and their browsers' push subscriptions
(POST/DELETE /api/v1/reminders/subscriptions/). Nothing is sent from here: the beat's
task sends (notifications/sending.py)."""

from __future__ import annotations

import ipaddress
import zoneinfo
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_body, error_response
from notifications import services, vapid
from notifications.models import ENDPOINT_MAX_CHARS, STREAK_HOURS_MAX, STREAK_HOURS_MIN

SETTINGS_FIELDS = (
    "deal_ready",
    "streak_ending",
    "league_passed",
    "race_starting",
    "streak_hours",
    "time_zone",
    "quiet_from",
    "quiet_until",
)


def _loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class KeysSerializer(serializers.Serializer[Any]):
    p256dh = serializers.CharField(max_length=100, help_text="the browser's P-256 key, base64url")
    auth = serializers.CharField(max_length=40, help_text="16-byte secret, base64url")

    def validate_p256dh(self, value: str) -> str:
        try:
            services.check_p256dh(value)
        except ValueError as error:
            raise serializers.ValidationError(f"p256dh is {error}") from error
        return value

    def validate_auth(self, value: str) -> str:
        try:
            services.check_auth(value)
        except ValueError as error:
            raise serializers.ValidationError(f"auth is {error}") from error
        return value


class SubscriptionSerializer(serializers.Serializer[Any]):
    """What the browser's PushSubscription.toJSON() gives (expirationTime is ignored)."""

    endpoint = serializers.URLField(max_length=ENDPOINT_MAX_CHARS)
    keys = KeysSerializer()

    def validate_endpoint(self, value: str) -> str:
        parts = urlsplit(value)
        # Push services are HTTPS; plain HTTP only to this machine, in development (a local
        # push service in the tests).
        if parts.scheme != "https" and not (settings.DEBUG and _loopback(parts.hostname)):
            raise serializers.ValidationError("a push service's address starts with https://")
        return value


class EndpointSerializer(serializers.Serializer[Any]):
    endpoint = serializers.URLField(max_length=ENDPOINT_MAX_CHARS)


class SettingsSerializer(serializers.Serializer[Any]):
    deal_ready = serializers.BooleanField(required=False, help_text="today's deal is ready")
    streak_ending = serializers.BooleanField(
        required=False, help_text="your streak ends in `streak_hours` and you have not played"
    )
    league_passed = serializers.BooleanField(
        required=False, help_text="a league mate passed you on today's board"
    )
    race_starting = serializers.BooleanField(
        required=False, help_text="a race room you are seated in starts"
    )
    streak_hours = serializers.IntegerField(
        required=False, min_value=STREAK_HOURS_MIN, max_value=STREAK_HOURS_MAX
    )
    time_zone = serializers.CharField(
        required=False, max_length=64, help_text="IANA name, e.g. Europe/Paris"
    )
    quiet_from = serializers.TimeField(
        required=False, allow_null=True, help_text="no reminder from this time of your day…"
    )
    quiet_until = serializers.TimeField(
        required=False, allow_null=True, help_text="…until this one (both, or both null)"
    )

    def validate_time_zone(self, value: str) -> str:
        if value not in zoneinfo.available_timezones():
            raise serializers.ValidationError(f"{value!r} is not a known time zone")
        return value


@extend_schema_serializer(component_name="Reminders")
class RemindersSerializer(SettingsSerializer):
    public_key = serializers.CharField(
        allow_null=True,
        help_text="the server's VAPID key, PushManager.subscribe's applicationServerKey "
        "(null: this server sends no reminders)",
    )
    subscriptions = serializers.IntegerField(help_text="the player's browsers subscribed")


def _reminders(player: Any) -> dict[str, Any]:
    choice = services.reminder_settings(player)
    body: dict[str, Any] = {field: getattr(choice, field) for field in SETTINGS_FIELDS}
    body["public_key"] = vapid.public_key()
    body["subscriptions"] = player.push_subscriptions.count()
    return dict(RemindersSerializer(body).data)


class RemindersApi(APIView):
    """The signed-in player's reminders: which kinds, quiet hours, and the server's key."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="reminders",
        responses={200: RemindersSerializer, 403: error_response("not signed in.")},
    )
    def get(self, request: Request) -> Response:
        return Response(_reminders(request.user))

    @extend_schema(
        operation_id="reminders_update",
        request=SettingsSerializer,
        responses={
            200: RemindersSerializer,
            400: error_response("invalid: the details name each field refused and why."),
            403: error_response("not signed in."),
        },
    )
    def put(self, request: Request) -> Response:
        params = SettingsSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        changes = dict(params.validated_data)
        current = services.reminder_settings(request.user)
        quiet = [changes.get(f, getattr(current, f)) for f in ("quiet_from", "quiet_until")]
        if (quiet[0] is None) != (quiet[1] is None):
            raise serializers.ValidationError(
                {"quiet_until": ["quiet_from and quiet_until are both set, or both null"]}
            )
        services.reminder_settings_update(player=request.user, changes=changes)
        return Response(_reminders(request.user))


class SubscriptionsApi(APIView):
    """The signed-in player's browser subscribes (POST) or unsubscribes (DELETE)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="reminders_subscribe",
        request=SubscriptionSerializer,
        responses={
            200: RemindersSerializer,
            201: RemindersSerializer,
            400: error_response("invalid: the details name each field refused and why."),
            403: error_response("not signed in."),
        },
    )
    def post(self, request: Request) -> Response:
        params = SubscriptionSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        created = services.subscription_save(
            player=request.user,
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
        )
        answer_status = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(_reminders(request.user), status=answer_status)

    @extend_schema(
        operation_id="reminders_unsubscribe",
        request=EndpointSerializer,
        responses={
            204: None,
            400: error_response("invalid: `endpoint` is missing or not an address."),
            403: error_response("not signed in."),
            404: error_response("no subscription of yours at that endpoint."),
        },
    )
    def delete(self, request: Request) -> Response:
        params = EndpointSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        if not services.subscription_delete(
            player=request.user, endpoint=params.validated_data["endpoint"]
        ):
            body = error_body("not_found", "No subscription of yours at that endpoint.")
            return Response(body, status=status.HTTP_404_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)
