"""Attempts: read one, post actions, resign, ask for a hint. Owner only (others get 404)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from games.api.common import NOT_FOUND, SCOPED, SIGNED_IN, THROTTLED, UNAUTHENTICATED
from games.api.held_cursors import held_cursors
from games.api.rendering import render
from games.api.schema import (
    AttemptSerializer,
    ScoreSerializer,
    StateViewSerializer,
)
from games.selectors import attempt_detail, attempt_for_player
from games.services.attempts import (
    attempt_close_if_day_over,
    attempt_push_actions,
    attempt_resign,
)
from games.services.autocomplete import attempt_autocomplete
from games.services.hints import attempt_hint

# An offset no log reaches (a day's play is a few thousand actions), far inside bigint.
MAX_LOG_OFFSET = 1_000_000
# The longest action the notation has room for (docs/rules.md), with some to spare.
MAX_ACTION_CHARS = 16
# Bytes per action in a post's body: a 16-character action, quoted, with room for layout.
ACTION_BODY_BYTES = 48


def fast_batch(data: Any) -> tuple[int, list[str]] | None:
    """``(offset, actions)`` when ``data`` is plainly what the input serializer takes (an
    object with an integer offset in range and 1 to ACTIONS_MAX_BATCH short ASCII strings),
    else None: then the serializer itself checks it and says what is wrong, in its words."""
    if not isinstance(data, dict):
        return None
    offset, actions = data.get("offset"), data.get("actions")
    if type(offset) is not int or not 0 <= offset <= MAX_LOG_OFFSET:
        return None
    if type(actions) is not list or not 0 < len(actions) <= settings.ACTIONS_MAX_BATCH:
        return None
    for action in actions:
        if (
            type(action) is not str
            or len(action) > MAX_ACTION_CHARS
            or not action.isascii()
            or "\x00" in action
        ):
            return None
    return offset, actions


def actions_body_budget() -> int:
    """The largest actions post worth reading: ACTIONS_MAX_BATCH actions, written out."""
    return settings.ACTIONS_MAX_BATCH * ACTION_BODY_BYTES + 1024


OVER = error_response("attempt_over: the attempt has ended (won, resigned or day closed).")


class AttemptDetailApi(APIView):
    """The player's view of the attempt; after it ends also its log and the full deal."""

    permission_classes = SIGNED_IN

    @extend_schema(
        operation_id="attempt_detail",
        responses={200: AttemptSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_close_if_day_over(attempt=attempt_for_player(attempt_id, request.user))
        return Response(render(AttemptSerializer, attempt_detail(attempt)))


class StrictActionField(serializers.CharField):
    """An action is a string; DRF's CharField would quietly turn 12 into "12"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class AttemptActionsApi(APIView):
    """Post one or more actions (docs/rules.md notation) starting at ``offset`` of the stored log.

    The server replays them through the engine under a row lock. A retry of a stored batch
    (same offset, same actions) is answered as the first time and changes nothing; a stale
    or conflicting offset gets 409 with the current offset; a refused action gets 400 and
    nothing of the batch is stored.
    """

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"
    max_body_bytes = staticmethod(actions_body_budget)  # core/request_guard.py: 413 past it

    class InputSerializer(serializers.Serializer[Any]):
        # Fields made anew per request instead of declared: a serializer deep-copies its
        # declared fields on every instantiation, a few per cent of a post (docs/api.md).
        def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
            return {
                "offset": serializers.IntegerField(min_value=0, max_value=MAX_LOG_OFFSET),
                "actions": serializers.ListField(
                    child=StrictActionField(
                        max_length=MAX_ACTION_CHARS, allow_blank=True, trim_whitespace=False
                    ),
                    min_length=1,
                ),
            }

        def to_internal_value(self, data: Any) -> Any:
            # Count before looking at any item: an oversize batch costs nothing to refuse.
            actions = data.get("actions") if isinstance(data, dict) else None
            if isinstance(actions, list) and len(actions) > settings.ACTIONS_MAX_BATCH:
                raise serializers.ValidationError(
                    {"actions": [f"At most {settings.ACTIONS_MAX_BATCH} actions a post."]}
                )
            return super().to_internal_value(data)

        class Meta:
            ref_name = "AttemptActionsRequest"

    class OutputSerializer(serializers.Serializer[Any]):
        class RevealedSerializer(serializers.Serializer[Any]):
            pile = serializers.CharField(help_text="Where the card turned face up, e.g. t3.")
            card = serializers.CharField()

        offset = serializers.IntegerField(help_text="The new length of the log.")
        action_count = serializers.IntegerField()
        state = StateViewSerializer()
        revealed = RevealedSerializer(many=True)
        legal_actions = serializers.ListField(child=serializers.CharField())
        won = serializers.BooleanField()
        over = serializers.BooleanField()
        deals_left = serializers.IntegerField()
        runs_completed = serializers.IntegerField()
        elapsed_seconds = serializers.FloatField(help_text="Server time of this batch.")
        score = ScoreSerializer(help_text="Provisional; final when won.")

        class Meta:
            ref_name = "AttemptActionsResponse"

    @extend_schema(
        operation_id="attempt_actions",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: error_response(
                "invalid (body), invalid_action or illegal_action (details: index, action, "
                "kind, reason); nothing of the batch was stored."
            ),
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: error_response(
                "offset_conflict (details.offset: the current offset) or attempt_over."
            ),
            429: THROTTLED,
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        batch_in = fast_batch(request.data)
        if batch_in is None:
            data = self.InputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            batch_in = data.validated_data["offset"], data.validated_data["actions"]
        offset, actions = batch_in
        # This process's cursor of the attempt since its last post here, if any: it saves
        # the lock and the replay (games/api/held_cursors.py).
        cursor = held_cursors.take(attempt_id)
        try:
            batch = attempt_push_actions(
                attempt_id=attempt_id,
                player=request.user,
                offset=offset,
                actions=actions,
                cursor=cursor,
            )
        finally:
            held_cursors.give_back(attempt_id, cursor)
        return Response(render(self.OutputSerializer, batch))


class AttemptResignApi(APIView):
    """End the attempt now; it is scored with the position reached."""

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "actions"

    @extend_schema(
        operation_id="attempt_resign",
        request=None,
        responses={
            200: AttemptSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: OVER,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_resign(attempt_id=attempt_id, player=request.user)
        return Response(render(AttemptSerializer, attempt_detail(attempt)))


class AttemptHintApi(APIView):
    """The first action of a winning line from here (practice attempts only).

    From the deal's solution or an earlier hint's line while the player follows one, else
    from the solver within ``HINT_SECONDS``.
    """

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "hints"

    class OutputSerializer(serializers.Serializer[Any]):
        action = serializers.CharField(allow_null=True, help_text="null: no hint found.")
        status = serializers.ChoiceField(choices=["solved", "unsolvable", "unknown"])
        moves_to_win = serializers.IntegerField(allow_null=True)
        message = serializers.CharField()

        class Meta:
            ref_name = "AttemptHint"

    @extend_schema(
        operation_id="attempt_hint",
        responses={
            200: OutputSerializer,
            401: UNAUTHENTICATED,
            403: error_response("hints_not_allowed: ranked attempts get no hints."),
            404: NOT_FOUND,
            409: OVER,
            429: THROTTLED,
            503: error_response(
                "hints_busy: this server's hint searches are all taken; ask again shortly."
            ),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        hint = attempt_hint(attempt_for_player(attempt_id, request.user))
        return Response(render(self.OutputSerializer, hint))


class AttemptAutocompleteApi(APIView):
    """Finish the game for the player once the rest is safe (every card face up, the stock
    dealt): the solver's winning line from here, played as ordinary actions on the log.

    Answers as the last batch of those actions would (the game won); 409 ``not_safe``
    before every card is up and the stock dealt, ``no_finish_found`` when no win is found
    (nothing is played then).
    """

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "hints"

    @extend_schema(
        operation_id="attempt_autocomplete",
        request=None,
        responses={
            200: AttemptActionsApi.OutputSerializer,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: error_response(
                "not_safe (a card face down or a deal left), no_finish_found (details.status: "
                "unsolvable or unknown), attempt_over, or offset_conflict (played meanwhile)."
            ),
            429: THROTTLED,
            503: error_response("hints_busy: this server's solver slots are all taken."),
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        batch = attempt_autocomplete(attempt_id=attempt_id, player=request.user)
        return Response(render(AttemptActionsApi.OutputSerializer, batch))
