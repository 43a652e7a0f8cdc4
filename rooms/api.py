"""The rooms' REST API under /api/v1/rooms/: one class per operation.

A room is named by its code (its link). The race itself is played through the attempts
API (``my_seat.attempt_id``: actions, resign); these only open, join, leave, ready, start,
read and, once the race is over, reveal.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from core.strict_fields import StrictBooleanField, StrictIntegerField
from games.api.challenges import practice_variant
from games.api.common import BAD_INPUT, SCOPED, SIGNED_IN, THROTTLED, UNAUTHENTICATED
from games.api.replays import BAD_STEP, STEP, ReplayStepSerializer, parse_step
from games.api.schema import ScoreSerializer
from games.models import VARIANT_CHOICES
from games.selectors import attempt_replay_step, deal_solution_step
from rooms import selectors, services
from rooms.models import MAX_MINUTES, MAX_SEATS, MIN_MINUTES, MIN_SEATS, Room

NOT_FOUND = error_response("not_found: no such room (or racer).")
NOT_OVER = error_response("race_not_over: public once the race is over for every racer.")
CHANGE_REFUSED = error_response(
    "room_started (the race started, or the room closed), room_full, already_ready or "
    "too_few_racers; nothing was stored."
)
FORBIDDEN = error_response("not_seated (join first) or not_host (only the host starts).")
NO_DEAL = error_response("no_practice_deal: no verified deal none of the racers has played.")


class ProgressSerializer(serializers.Serializer[Any]):
    action_count = serializers.IntegerField()
    runs_completed = serializers.IntegerField()
    cards_turned_up = serializers.IntegerField(
        help_text="The deal's face-down tableau cards this racer has turned up."
    )
    cards_home = serializers.IntegerField(help_text="Cards in complete runs on the foundations.")
    deals_left = serializers.IntegerField()
    finished = serializers.BooleanField()
    won = serializers.BooleanField()
    resigned = serializers.BooleanField(help_text="Ended without a win (or at the time limit).")


class RacerSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    host = serializers.BooleanField()
    ready = serializers.BooleanField()
    progress = ProgressSerializer(allow_null=True, help_text="null until the race starts.")


class ResultSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField(
        help_text="docs/rules.md's ranking: won first, then runs home, cards turned up, score, "
        "time and end; a racer who ended with no action last."
    )
    username = serializers.CharField()
    won = serializers.BooleanField()
    score = serializers.IntegerField(allow_null=True)
    score_parts = ScoreSerializer()
    elapsed_seconds = serializers.FloatField(allow_null=True)
    action_count = serializers.IntegerField()
    runs_completed = serializers.IntegerField()
    cards_turned_up = serializers.IntegerField()
    face_down_dealt = serializers.IntegerField(
        help_text="The deal's face-down tableau cards: what cards_turned_up counts against."
    )
    end_reason = serializers.CharField(allow_null=True)


class MySeatSerializer(serializers.Serializer[Any]):
    ready = serializers.BooleanField()
    attempt_id = serializers.IntegerField(
        allow_null=True, help_text="Your race's attempt (play it with the attempts API)."
    )


class RoomSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="The room's link: /rooms/<code>/.")
    host = serializers.CharField()
    variant = serializers.CharField()
    seats = serializers.IntegerField()
    public = serializers.BooleanField()
    time_limit_minutes = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Room.Status.choices)
    starts_at = serializers.CharField(allow_null=True, help_text="The start signal (server).")
    ends_at = serializers.CharField(allow_null=True, help_text="The time limit (server).")
    finished_at = serializers.CharField(allow_null=True)
    server_now = serializers.CharField(help_text="The server clock when this was read.")
    racers = RacerSerializer(many=True)
    my_seat = MySeatSerializer(allow_null=True)
    results = ResultSerializer(many=True, allow_null=True, help_text="Once the race is over.")

    class Meta:
        ref_name = "Room"


def room_answer(room: Room, request: Request, code: int = status.HTTP_200_OK) -> Response:
    return Response(RoomSerializer(selectors.room_detail(room, request.user)).data, status=code)


class RoomListApi(APIView):
    """GET: the public rooms taking seats. POST: open a room (you take its first seat)."""

    class RoomRowSerializer(serializers.Serializer[Any]):
        code = serializers.CharField()
        host = serializers.CharField()
        variant = serializers.CharField()
        seats = serializers.IntegerField()
        taken = serializers.IntegerField()
        time_limit_minutes = serializers.IntegerField()
        created_at = serializers.DateTimeField()

    class InputSerializer(serializers.Serializer[Any]):
        variant = serializers.ChoiceField(choices=VARIANT_CHOICES, validators=[practice_variant])
        seats = StrictIntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS)
        public = StrictBooleanField(default=True)
        time_limit_minutes = StrictIntegerField(min_value=MIN_MINUTES, max_value=MAX_MINUTES)

        class Meta:
            ref_name = "RoomCreateRequest"

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [p() for p in SIGNED_IN]

    def get_throttles(self) -> list[Any]:
        return [] if self.request.method == "GET" else [t() for t in SCOPED]

    throttle_scope = "actions"

    @extend_schema(operation_id="rooms_list", responses={200: RoomRowSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(self.RoomRowSerializer(selectors.rooms_open(), many=True).data)

    @extend_schema(
        operation_id="room_create",
        request=InputSerializer,
        responses={201: RoomSerializer, 400: BAD_INPUT, 401: UNAUTHENTICATED, 429: THROTTLED},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        room = services.room_create(host=request.user, **data.validated_data)
        return room_answer(room, request, status.HTTP_201_CREATED)


class RoomDetailApi(APIView):
    """The room: its seats, the racers' live progress (counts, never a card), your seat and
    attempt, and the results once the race is over."""

    permission_classes = [AllowAny]

    @extend_schema(operation_id="room_detail", responses={200: RoomSerializer, 404: NOT_FOUND})
    def get(self, request: Request, code: str) -> Response:
        room = services.room_end_if_due(room=selectors.room_by_code(code))
        return room_answer(room, request)


class RoomChangeApi(APIView):
    """A change to the room by a signed-in player (subclasses name the service)."""

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"
    service: Any = None

    def post(self, request: Request, code: str) -> Response:
        type(self).service(code=code, player=request.user)
        return room_answer(selectors.room_by_code(code), request)


CHANGE_RESPONSES = {
    200: RoomSerializer,
    401: UNAUTHENTICATED,
    403: FORBIDDEN,
    404: NOT_FOUND,
    409: CHANGE_REFUSED,
    429: THROTTLED,
}


class RoomJoinApi(RoomChangeApi):
    """Take a seat (refused when the room is full, started or closed)."""

    service = staticmethod(services.room_join)

    @extend_schema(operation_id="room_join", request=None, responses=CHANGE_RESPONSES)
    def post(self, request: Request, code: str) -> Response:
        return super().post(request, code)


class RoomLeaveApi(RoomChangeApi):
    """Give up your seat before the start (after it, resign your attempt)."""

    service = staticmethod(services.room_leave)

    @extend_schema(operation_id="room_leave", request=None, responses=CHANGE_RESPONSES)
    def post(self, request: Request, code: str) -> Response:
        return super().post(request, code)


class RoomReadyApi(RoomChangeApi):
    """Mark your seat ready; when every seat present (two or more) is, the race starts:
    a 3 s countdown on the server clock, then every racer's clock at the same instant."""

    service = staticmethod(services.room_ready)

    @extend_schema(
        operation_id="room_ready", request=None, responses={**CHANGE_RESPONSES, 503: NO_DEAL}
    )
    def post(self, request: Request, code: str) -> Response:
        return super().post(request, code)


class RoomStartApi(RoomChangeApi):
    """The host starts the race with the seats present (two at least), ready or not."""

    service = staticmethod(services.room_start)

    @extend_schema(
        operation_id="room_start", request=None, responses={**CHANGE_RESPONSES, 503: NO_DEAL}
    )
    def post(self, request: Request, code: str) -> Response:
        return super().post(request, code)


class RoomRevealApi(APIView):
    """After the race: the whole deal, its solution, the results and every racer's log."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer[Any]):
        class RacerLogSerializer(serializers.Serializer[Any]):
            username = serializers.CharField()
            attempt_id = serializers.IntegerField()
            log = serializers.ListField(child=serializers.CharField())
            action_times = serializers.ListField(child=serializers.FloatField())

        code = serializers.CharField()
        variant = serializers.CharField()
        cards_revealed = serializers.BooleanField(help_text="Always true: the deal is public.")
        start_state = serializers.JSONField(help_text="The State JSON of docs/rules.md, whole.")
        solution = serializers.ListField(child=serializers.CharField())
        results = ResultSerializer(many=True)
        racers = RacerLogSerializer(many=True)

        class Meta:
            ref_name = "RoomReveal"

    @extend_schema(
        operation_id="room_reveal",
        responses={200: OutputSerializer, 403: NOT_OVER, 404: NOT_FOUND},
    )
    def get(self, request: Request, code: str) -> Response:
        room = services.room_end_if_due(room=selectors.room_by_code(code))
        return Response(self.OutputSerializer(selectors.race_reveal(room)).data)


RACER = OpenApiParameter("username", str, OpenApiParameter.PATH)


class RoomReplayApi(APIView):
    """A racer's game after the race, position by position (whole cards)."""

    permission_classes = [AllowAny]

    class OutputSerializer(ReplayStepSerializer):
        attempt_id = serializers.IntegerField()

        class Meta:
            ref_name = "RoomReplayStep"

    @extend_schema(
        operation_id="room_replay",
        parameters=[STEP],
        responses={200: OutputSerializer, 400: BAD_STEP, 403: NOT_OVER, 404: NOT_FOUND},
    )
    def get(self, request: Request, code: str, username: str) -> Response:
        room = services.room_end_if_due(room=selectors.room_by_code(code))
        attempt = selectors.racer_attempt(room, username)
        step = parse_step(request.query_params.get("step"), len(attempt.log))
        return Response(self.OutputSerializer(attempt_replay_step(attempt, step)).data)


class RoomSolutionApi(APIView):
    """After the race: the deal's proven solution, position by position."""

    permission_classes = [AllowAny]

    class OutputSerializer(ReplayStepSerializer):
        class Meta:
            ref_name = "RoomSolutionStep"

    @extend_schema(
        operation_id="room_solution",
        parameters=[STEP],
        responses={200: OutputSerializer, 400: BAD_STEP, 403: NOT_OVER, 404: NOT_FOUND},
    )
    def get(self, request: Request, code: str) -> Response:
        room = services.room_end_if_due(room=selectors.room_by_code(code))
        selectors.race_reveal_allowed(room)
        assert room.deal is not None
        step = parse_step(request.query_params.get("step"), len(room.deal.solution or []))
        return Response(self.OutputSerializer(deal_solution_step(room.deal, step)).data)
