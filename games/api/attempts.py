"""Attempts: read one, post actions, resign, ask for a hint. Owner only (others get 404)."""

from __future__ import annotations

from typing import Any

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
)
from games.play import play_actions
from games.play.answers import ActionsResponseSerializer
from games.play.batch_input import ActionsRequestSerializer, actions_body_budget
from games.selectors import attempt_detail, attempt_for_player
from games.services.attempts import (
    attempt_close_if_day_over,
    attempt_resign,
)
from games.services.autocomplete import attempt_autocomplete
from games.services.hints import attempt_hint

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


class AttemptActionsApi(APIView):
    """Post one or more actions (docs/rules.md notation) starting at ``offset`` of the stored log.

    The server plays them through the engine from the stored log: a batch is stored whole
    or not at all, and two batches of one attempt never both store at the same offset. A
    retry of a stored batch (same offset, same actions) is answered as the first time and
    changes nothing; a stale or conflicting offset gets 409 with the current offset; a
    refused action gets 400 and nothing of the batch is stored. The play socket
    (``ws/attempts/<id>/play/``) takes the same batches with the same answers, cheaper.
    """

    permission_classes = SIGNED_IN
    throttle_classes = []  # the door counts the batch in the ``actions`` scope (games/play/)
    max_body_bytes = staticmethod(actions_body_budget)  # core/request_guard.py: 413 past it
    InputSerializer = ActionsRequestSerializer
    OutputSerializer = ActionsResponseSerializer

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
        # This process's cursor of the attempt since its last post here, if any: it saves
        # the lock and the replay (games/api/held_cursors.py).
        cursor = held_cursors.take(attempt_id)
        try:
            # A pooled connection can die under the request (PostgreSQL restarted, its backend
            # terminated): the batch is played once more on a fresh one, as on the socket.
            answer = play_actions(
                attempt_id=attempt_id,
                player=request.user,
                read_data=lambda: request.data,
                cursor=cursor,
                held_connection=True,
            )
        finally:
            held_cursors.give_back(attempt_id, cursor)
        wait = answer.retry_after
        headers = {"Retry-After": str(wait)} if wait else None  # (as DRF's Throttled sets it)
        return Response(answer.body, status=answer.status, headers=headers)


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
    from the solver within ``HINT_SECONDS``. A game has ``HINTS_PER_GAME`` hints; the rate
    limit (``practice_hints``) is one that only a program asking without pause meets.
    """

    permission_classes = SIGNED_IN
    throttle_classes = SCOPED
    throttle_scope = "practice_hints"

    class OutputSerializer(serializers.Serializer[Any]):
        action = serializers.CharField(allow_null=True, help_text="null: no hint found.")
        status = serializers.ChoiceField(choices=["solved", "unsolvable", "unknown"])
        moves_to_win = serializers.IntegerField(allow_null=True)
        message = serializers.CharField()
        hints_left = serializers.IntegerField(help_text="Hints this game may still have.")

        class Meta:
            ref_name = "AttemptHint"

    @extend_schema(
        operation_id="attempt_hint",
        responses={
            200: OutputSerializer,
            401: UNAUTHENTICATED,
            403: error_response("hints_not_allowed: ranked attempts get no hints."),
            404: NOT_FOUND,
            409: error_response(
                "attempt_over: the attempt is over; hint_budget_spent: this game has had "
                "its HINTS_PER_GAME hints (details.hints_per_game)."
            ),
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
