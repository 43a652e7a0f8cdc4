"""The API root, `/api/v1/`: every endpoint group with its URL templates and methods.

The groups name their routes (URL names); the templates and methods are read from the
URLconf, so a route's path is written once. tests/config/test_api_root.py checks that every
route under /api/v1/ is in a group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from django.urls import URLPattern, URLResolver, get_resolver, get_script_prefix
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

# group -> (what it is for, its routes' URL names), in the order a newcomer reads them.
API_GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "challenges": (
        "Today's dailies and one challenge (its seed, nonce, deal and solution once its day "
        "is over); starting the one ranked attempt; after the day, every counted attempt's "
        "log and the solver's solution.",
        (
            "challenges-today",
            "challenge-detail",
            "challenge-start",
            "challenge-attempts",
            "challenge-solution",
        ),
    ),
    "practice": (
        "An unranked attempt on a verified practice deal.",
        ("practice-start",),
    ),
    "archive": (
        "Past dailies (their day over) by month and variant, and playing one again as an "
        "unranked practice attempt.",
        ("archive-month", "archive-start"),
    ),
    "attempts": (
        "Playing an attempt: the owner's view, action batches, resign, a practice hint, and "
        "a finished attempt position by position, and its analysis once its cards are public.",
        (
            "attempt-detail",
            "attempt-actions",
            "attempt-resign",
            "attempt-hint",
            "attempt-autocomplete",
            "attempt-replay",
            "attempt-analysis",
        ),
    ),
    "leaderboards": (
        "A challenge's board (won attempts first), the all-time board of won dailies, and "
        "where an archive attempt would have ranked on its day.",
        ("leaderboard-challenge", "leaderboard-alltime", "leaderboard-would-rank"),
    ),
    "streaks": ("The longest current runs of daily wins.", ("leaderboard-streaks",)),
    "ratings": (
        "Skill ratings from every closed daily (openskill's Plackett-Luce): a variant's rating "
        "board, and your rating and what a day did to it.",
        ("leaderboard-ratings", "leaderboard-attempt-rating"),
    ),
    "players": (
        "A player's page: ratings and their history, days played, best ranks, recent "
        "replays, statistics, streaks; and your own page's setting (hide it from others).",
        ("leaderboard-player", "leaderboard-profile"),
    ),
    "leagues": (
        "Private boards: create, join by invite code, rotate it, leave, remove a member, hand "
        "over, delete; a league's day, all-time and streak boards.",
        (
            "leagues",
            "leagues-join",
            "leagues-invite-lookup",
            "leagues-detail",
            "leagues-invite",
            "leagues-leave",
            "leagues-owner",
            "leagues-member",
            "leagues-board-challenge",
            "leagues-alltime",
            "leagues-streaks",
        ),
    ),
    "rooms": (
        "Race rooms: the public rooms, open one, join, leave, ready, start, the room with "
        "every racer's progress; after the race the deal, its solution and every racer's game.",
        (
            "rooms",
            "room-detail",
            "room-join",
            "room-leave",
            "room-ready",
            "room-start",
            "room-reveal",
            "room-solution",
            "room-replay",
        ),
    ),
    "reminders": (
        "Reminders by Web Push: the server's key and the player's choices (kinds, quiet "
        "hours, time zone); a browser's subscription, added or removed.",
        ("reminders", "reminders-subscriptions"),
    ),
    "auth": (
        "Sign-up, log-in and log-out (session), the signed-in player, API tokens (a client "
        "with no session signs up for one), the password rules.",
        (
            "auth-signup",
            "auth-login",
            "auth-logout",
            "auth-me",
            "auth-token",
            "auth-token-signup",
            "auth-tokens",
            "auth-password-rules",
        ),
    ),
    "reviews": (
        "Staff only: a challenge's fair-play reviews (flagged attempts, their severity and "
        "evidence); voiding and clearing are on the admin's review page.",
        ("admin-reviews",),
    ),
    "health": ("Liveness and configuration (200, or 503 without the database).", ("health",)),
    "schema": ("The OpenAPI schema of this API.", ("api-schema",)),
    "docs": ("The OpenAPI schema, browsable.", ("api-docs",)),
    "admin": ("Operators: deals, dailies, attempts, players.", ("admin:index",)),
}

HTTP_METHODS = ("get", "post", "put", "patch", "delete")
_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")


@dataclass(frozen=True)
class Route:
    name: str  # namespaced: "admin:index"
    template: str  # from the site's root, "{name}" for a path parameter: "api/v1/x/{id}/"
    methods: tuple[str, ...]


def _methods(pattern: URLPattern) -> tuple[str, ...]:
    view_class = getattr(pattern.callback, "view_class", None)
    if view_class is None:
        return ("GET",)  # a function view of this site (health) or the admin's index
    return tuple(m.upper() for m in HTTP_METHODS if hasattr(view_class, m))


def _walk(
    patterns: Iterable[URLPattern | URLResolver], prefix: str, namespace: str
) -> Iterator[Route]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            yield from _walk(pattern.url_patterns, route, inner)
        elif pattern.name:
            name = f"{namespace}:{pattern.name}" if namespace else pattern.name
            yield Route(name, _CONVERTER.sub(r"{\1}", route), _methods(pattern))


@cache
def site_routes() -> dict[str, Route]:
    """Every named route of the URLconf (the first one of a name, as reverse() picks)."""
    routes: dict[str, Route] = {}
    for route in _walk(get_resolver().url_patterns, "", ""):
        routes.setdefault(route.name, route)
    return routes


class EndpointSerializer(serializers.Serializer):
    url = serializers.CharField(
        help_text="Absolute URL; `{name}` stands for a path parameter (`{challenge_id}`)."
    )
    methods = serializers.ListField(child=serializers.CharField())


class GroupSerializer(serializers.Serializer):
    description = serializers.CharField()
    endpoints = EndpointSerializer(many=True)


class ApiRootSerializer(serializers.Serializer):
    groups = serializers.DictField(
        child=GroupSerializer(),
        help_text="challenges, practice, attempts, leaderboards, streaks, ratings, players, auth, "
        "health, schema, docs, admin.",
    )


class ApiRootApi(APIView):
    """Every endpoint group of the API with its endpoints' URL templates and methods."""

    @extend_schema(responses=ApiRootSerializer)
    def get(self, request: Request) -> Response:
        routes = site_routes()
        origin = request.build_absolute_uri(get_script_prefix())
        groups = {
            group: {
                "description": description,
                "endpoints": [
                    {"url": origin + routes[name].template, "methods": list(routes[name].methods)}
                    for name in names
                ],
            }
            for group, (description, names) in API_GROUPS.items()
        }
        return Response(ApiRootSerializer({"groups": groups}).data)
