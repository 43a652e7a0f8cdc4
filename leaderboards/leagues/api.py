"""Leagues' REST API under /api/v1/leagues/: one class per operation, signed-in players only.

A league exists only for its members: every other caller gets 404 for its id, as for an id
that is no league's (no names or members to find by trying ids).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from core.throttles import AddressRateThrottle
from games.errors import NotFoundError
from games.models import VARIANT_CHOICES
from games.selectors import challenge_for_viewing
from leaderboards import selectors
from leaderboards.api import (
    MAX_OFFSET,
    AllTimeRowSerializer,
    BoardRowSerializer,
    ChallengeRefSerializer,
    CountsSerializer,
    StreakRowSerializer,
)
from leaderboards.leagues import services
from leaderboards.leagues.boards import league_day_board
from leaderboards.leagues.selectors import league_for_member, league_members, leagues_of
from leaderboards.models import LEAGUE_MAX_MEMBERS, LEAGUE_NAME_MAX_CHARS, League

SIGNED_IN = [IsAuthenticated]
UNAUTHENTICATED = error_response("Not signed in (session or token).")
NOT_FOUND = error_response("not_found: no such league, or you are not a member of it.")
BAD_INPUT = error_response("invalid: the body is not valid; details name the field.")
NOT_OWNER = error_response("not_league_owner: only the league's owner may do this.")
NO_SUCH_MEMBER = error_response(
    "not_found (the league) or not_a_member: that player is not in the league."
)


def invite_path(league: League) -> str:
    return f"/leagues/join/{league.invite_code}/"


def league_body(league: League, player: Any, member_count: int | None = None) -> dict[str, Any]:
    count = getattr(league, "member_count", None) if member_count is None else member_count
    if count is None:
        count = league.memberships.count()
    return {
        "id": league.pk,
        "name": league.name,
        "owner": league.owner.get_username(),
        "is_owner": league.owner_id == player.pk,
        "member_count": count,
        "max_members": LEAGUE_MAX_MEMBERS,
        "invite_code": league.invite_code,
        "invite_path": invite_path(league),
    }


class LeagueSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(help_text="the owner's username")
    is_owner = serializers.BooleanField(help_text="whether you own it")
    member_count = serializers.IntegerField()
    max_members = serializers.IntegerField()
    invite_code = serializers.CharField(help_text="following the invite link joins the league")
    invite_path = serializers.CharField(help_text="the page of the invite link")

    class Meta:
        ref_name = "League"


class MemberSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    joined_at = serializers.DateTimeField()
    owner = serializers.BooleanField()


@extend_schema_serializer(component_name="LeagueDetail")
class LeagueDetailSerializer(LeagueSerializer):
    members = MemberSerializer(many=True)

    class Meta:
        ref_name = "LeagueDetail"


class LeagueNameField(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=LEAGUE_NAME_MAX_CHARS, trim_whitespace=True, **kwargs)


def detail(league: League, player: Any) -> Response:
    members = league_members(league)
    body = {**league_body(league, player, len(members)), "members": members}
    return Response(LeagueDetailSerializer(body).data)


class LeaguesApi(APIView):
    """Your leagues (GET), or a new one that you own (POST)."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        name = LeagueNameField()

        class Meta:
            ref_name = "LeagueCreateRequest"

    @extend_schema(
        operation_id="leagues_list",
        responses={200: LeagueSerializer(many=True), 401: UNAUTHENTICATED},
    )
    def get(self, request: Request) -> Response:
        leagues = [league_body(league, request.user) for league in leagues_of(request.user)]
        return Response(LeagueSerializer(leagues, many=True).data)

    @extend_schema(
        operation_id="leagues_create",
        request=InputSerializer,
        responses={
            201: LeagueDetailSerializer,
            400: error_response("invalid: the name is missing, empty or too long."),
            401: UNAUTHENTICATED,
            409: error_response("league_name_taken: you already own a league of that name."),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = services.league_create(owner=request.user, name=data.validated_data["name"])
        response = detail(league, request.user)
        response.status_code = status.HTTP_201_CREATED
        return response


class LeagueJoinApi(APIView):
    """Join the league of an invite code (joining again changes nothing: 200)."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        code = serializers.CharField(max_length=32)

        class Meta:
            ref_name = "LeagueJoinRequest"

    @extend_schema(
        operation_id="leagues_join",
        request=InputSerializer,
        responses={
            200: LeagueDetailSerializer,
            201: LeagueDetailSerializer,
            400: error_response(
                "invalid (no code) or invite_invalid: a wrong code, or one the owner replaced."
            ),
            401: UNAUTHENTICATED,
            403: error_response("removed_from_league: the owner removed you under this code."),
            409: error_response("league_full: the league has its most members."),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league, joined = services.league_join(player=request.user, code=data.validated_data["code"])
        response = detail(league, request.user)
        response.status_code = status.HTTP_201_CREATED if joined else status.HTTP_200_OK
        return response


class LeagueInviteLookupApi(APIView):
    """What an invite link leads to, for anyone holding it (signed out too, so that the page
    can name the league before offering sign-up and join): the name, the owner, the size."""

    permission_classes = [AllowAny]
    throttle_classes = [AddressRateThrottle]
    throttle_scope = "login"

    class OutputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField()
        owner = serializers.CharField()
        member_count = serializers.IntegerField()
        full = serializers.BooleanField(help_text="true: joining would be refused (league_full)")

        class Meta:
            ref_name = "LeagueInvite"

    @extend_schema(
        operation_id="leagues_invite_lookup",
        responses={
            200: OutputSerializer,
            404: error_response(
                "not_found: no league has this invite code (mistyped or replaced)."
            ),
            429: error_response("Too many look-ups from this address."),
        },
    )
    def get(self, request: Request, code: str) -> Response:
        league = League.objects.filter(invite_code=code).select_related("owner").first()
        if league is None:
            raise NotFoundError(
                "This invite code is not valid: it is mistyped, or the owner has replaced it."
            )
        members = league.memberships.count()
        body = {
            "name": league.name,
            "owner": league.owner.get_username(),
            "member_count": members,
            "full": members >= LEAGUE_MAX_MEMBERS,
        }
        return Response(self.OutputSerializer(body).data)


class LeagueDetailApi(APIView):
    """A league you are in (GET: with its members and invite); the owner deletes it."""

    permission_classes = SIGNED_IN

    @extend_schema(
        operation_id="leagues_detail",
        responses={200: LeagueDetailSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    def get(self, request: Request, league_id: int) -> Response:
        return detail(league_for_member(league_id, request.user), request.user)

    @extend_schema(
        operation_id="leagues_delete",
        responses={204: None, 401: UNAUTHENTICATED, 403: NOT_OWNER, 404: NOT_FOUND},
    )
    def delete(self, request: Request, league_id: int) -> Response:
        services.league_delete(league_id=league_id, owner=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueInviteApi(APIView):
    """The owner replaces the invite code: every earlier link stops working."""

    permission_classes = SIGNED_IN

    @extend_schema(
        operation_id="leagues_invite_rotate",
        request=None,
        responses={200: LeagueSerializer, 401: UNAUTHENTICATED, 403: NOT_OWNER, 404: NOT_FOUND},
    )
    def post(self, request: Request, league_id: int) -> Response:
        league = services.league_rotate_code(league_id=league_id, owner=request.user)
        return Response(LeagueSerializer(league_body(league, request.user)).data)


class LeagueLeaveApi(APIView):
    """Leave a league (the owner hands it over or deletes it instead)."""

    permission_classes = SIGNED_IN

    @extend_schema(
        operation_id="leagues_leave",
        request=None,
        responses={
            204: None,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            409: error_response("owner_cannot_leave: hand the league over or delete it."),
        },
    )
    def post(self, request: Request, league_id: int) -> Response:
        services.league_leave(league_id=league_id, player=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueMemberApi(APIView):
    """The owner removes a member; that invite code no longer lets them back in."""

    permission_classes = SIGNED_IN

    @extend_schema(
        operation_id="leagues_member_remove",
        responses={
            204: None,
            401: UNAUTHENTICATED,
            403: NOT_OWNER,
            404: NO_SUCH_MEMBER,
            409: error_response("owner_cannot_leave: the owner cannot remove themselves."),
        },
    )
    def delete(self, request: Request, league_id: int, username: str) -> Response:
        services.league_remove_member(league_id=league_id, owner=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueOwnerApi(APIView):
    """The owner hands the league over to a member."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)

        class Meta:
            ref_name = "LeagueHandOverRequest"

    @extend_schema(
        operation_id="leagues_hand_over",
        request=InputSerializer,
        responses={
            200: LeagueDetailSerializer,
            400: BAD_INPUT,
            401: UNAUTHENTICATED,
            403: NOT_OWNER,
            404: NO_SUCH_MEMBER,
            409: error_response("league_name_taken: they already own a league of that name."),
        },
    )
    def post(self, request: Request, league_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = services.league_hand_over(
            league_id=league_id, owner=request.user, username=data.validated_data["username"]
        )
        return detail(league, request.user)


class LeagueRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


def board_responses(answer: type[Any], not_found: str) -> dict[int, Any]:
    return {
        200: answer,
        400: error_response("invalid: a query parameter is not valid; details name it."),
        401: UNAUTHENTICATED,
        404: error_response(f"not_found: {not_found}"),
    }


class LeagueDayBoardApi(APIView):
    """A daily board filtered to the league: the same ranking, ranks within the league, and
    your own row in it."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)
        offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0)

    @extend_schema_serializer(component_name="LeagueChallengeBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        league = LeagueRefSerializer()
        challenge = ChallengeRefSerializer()
        limit = serializers.IntegerField()
        offset = serializers.IntegerField()
        counts = CountsSerializer(help_text="members playing, members on the board")
        top = BoardRowSerializer(many=True)
        me = BoardRowSerializer(allow_null=True, help_text="your row and rank in the league")

    @extend_schema(
        operation_id="leagues_board_challenge",
        parameters=[InputSerializer],
        responses=board_responses(OutputSerializer, "no such league (of yours) or challenge."),
    )
    def get(self, request: Request, league_id: int, challenge_id: int) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        limit, offset = params.validated_data["limit"], params.validated_data["offset"]
        league = league_for_member(league_id, request.user)
        challenge = challenge_for_viewing(challenge_id)
        board = league_day_board(
            challenge.pk, league.pk, top=offset + limit, player_id=request.user.pk
        )
        me = board.me
        body = {
            "league": {"id": league.pk, "name": league.name},
            "challenge": selectors.challenge_ref(challenge),
            "limit": limit,
            "offset": offset,
            "counts": board.counts(),
            "top": [asdict(row) for row in board.rows[offset : offset + limit]],
            "me": asdict(me) if me else None,
        }
        return Response(self.OutputSerializer(body).data)


class LeagueAllTimeApi(APIView):
    """The all-time board (docs/rules.md: won dailies summed) of the league's members."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        days = serializers.IntegerField(min_value=1, max_value=365, default=30)
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)

    @extend_schema_serializer(component_name="LeagueAllTimeBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        league = LeagueRefSerializer()
        days = serializers.IntegerField()
        rows = AllTimeRowSerializer(many=True)

    @extend_schema(
        operation_id="leagues_board_alltime",
        parameters=[InputSerializer],
        responses=board_responses(OutputSerializer, "no such league (of yours)."),
    )
    def get(self, request: Request, league_id: int) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        league = league_for_member(league_id, request.user)
        days = params.validated_data["days"]
        rows = selectors.alltime_board(
            days=days, limit=params.validated_data["limit"], league_id=league.pk
        )
        body = {"league": {"id": league.pk, "name": league.name}, "days": days, "rows": rows}
        return Response(self.OutputSerializer(body).data)


class LeagueStreakBoardApi(APIView):
    """The league's members by their current streak of won dailies of one variant."""

    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        variant = serializers.ChoiceField(choices=VARIANT_CHOICES, required=False)
        limit = serializers.IntegerField(min_value=1, max_value=selectors.MAX_LIMIT, default=50)

    @extend_schema_serializer(component_name="LeagueStreakBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        league = LeagueRefSerializer()
        variant = serializers.CharField()
        rows = StreakRowSerializer(many=True)

    @extend_schema(
        operation_id="leagues_board_streaks",
        parameters=[InputSerializer],
        responses=board_responses(OutputSerializer, "no such league (of yours)."),
    )
    def get(self, request: Request, league_id: int) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        league = league_for_member(league_id, request.user)
        variant = params.validated_data.get("variant") or settings.DAILY_VARIANTS[0]
        rows = selectors.streak_board(
            variant, limit=params.validated_data["limit"], league_id=league.pk
        )
        body = {"league": {"id": league.pk, "name": league.name}, "variant": variant, "rows": rows}
        return Response(self.OutputSerializer(body).data)
