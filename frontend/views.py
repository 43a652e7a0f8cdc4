"""The web client's pages. They carry no game data: every page fetches what it shows from
the HTTP API (and the WebSocket), so no card the player has not seen is ever in a page."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie

from frontend.rules_page import rules_page


def _next_url(request: HttpRequest) -> str:
    """Where to go after signing in: a local path only, never another site."""
    target = request.GET.get("next", "/")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


@ensure_csrf_cookie
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/index.html", {"page": "home"})


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/auth.html",
        {"page": "signup", "mode": "signup", "next_url": _next_url(request)},
    )


@ensure_csrf_cookie
def login(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/auth.html",
        {"page": "login", "mode": "login", "next_url": _next_url(request)},
    )


@ensure_csrf_cookie
def play(request: HttpRequest, challenge_id: int) -> HttpResponse:
    # Only the id: the board itself comes from the API (the view form of the state).
    return render(
        request,
        "frontend/play.html",
        {"page": "play", "mode": "daily", "challenge_id": challenge_id},
    )


VARIANT_LABELS = {
    "astrocyte": "Astrocyte",
    "spider1": "Spider (1 suit)",
    "spider2": "Spider (2 suits)",
    "spider4": "Spider (4 suits)",
}


@ensure_csrf_cookie
def practice(request: HttpRequest) -> HttpResponse:
    # The play page in practice mode: the variants the practice pool holds, no deal (the API
    # gives it).
    variants = [(name, VARIANT_LABELS.get(name, name)) for name in settings.PRACTICE_VARIANTS]
    context = {"page": "practice", "mode": "practice", "variants": variants}
    return render(request, "frontend/play.html", context)


@ensure_csrf_cookie
def archive(request: HttpRequest) -> HttpResponse:
    # The calendar of past dailies: the variants played as dailies (the API gives the days).
    variants = [(name, VARIANT_LABELS.get(name, name)) for name in settings.DAILY_VARIANTS]
    return render(request, "frontend/archive.html", {"page": "archive", "variants": variants})


@ensure_csrf_cookie
def archive_day(request: HttpRequest, challenge_id: int) -> HttpResponse:
    # The play page on a past day's deal, as practice, with that day's board beside it.
    return render(
        request,
        "frontend/play.html",
        {"page": "archive", "mode": "archive", "challenge_id": challenge_id},
    )


@ensure_csrf_cookie
def replay(request: HttpRequest, attempt_id: int) -> HttpResponse:
    return render(
        request,
        "frontend/replay.html",
        {"page": "replay", "mode": "attempt", "object_id": attempt_id},
    )


@ensure_csrf_cookie
def challenge_replays(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return render(
        request,
        "frontend/replay.html",
        {"page": "replays", "mode": "challenge", "object_id": challenge_id},
    )


@ensure_csrf_cookie
def leaderboard_day(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return render(
        request,
        "frontend/leaderboard.html",
        {"page": "leaderboard", "mode": "day", "challenge_id": challenge_id},
    )


@ensure_csrf_cookie
def leaderboard_alltime(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/leaderboard.html", {"page": "alltime", "mode": "alltime"})


@ensure_csrf_cookie
def leaderboard_streaks(request: HttpRequest) -> HttpResponse:
    # Streaks are days of dailies won: only the variants played as dailies have them.
    context = {"page": "streaks", "mode": "streaks", "variants": list(settings.DAILY_VARIANTS)}
    return render(request, "frontend/leaderboard.html", context)


@ensure_csrf_cookie
def leaderboard_ratings(request: HttpRequest) -> HttpResponse:
    # Ratings come from closed dailies: only the variants played as dailies have them.
    context = {"page": "ratings", "mode": "ratings", "variants": list(settings.DAILY_VARIANTS)}
    return render(request, "frontend/leaderboard.html", context)


@ensure_csrf_cookie
def player(request: HttpRequest, username: str) -> HttpResponse:
    return render(request, "frontend/player.html", {"page": "player", "username": username})


@ensure_csrf_cookie
def leagues(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/leagues.html", {"page": "leagues", "mode": "list"})


@ensure_csrf_cookie
def league(request: HttpRequest, league_id: int) -> HttpResponse:
    return render(
        request,
        "frontend/leagues.html",
        {"page": "league", "mode": "league", "league_id": league_id},
    )


@ensure_csrf_cookie
def league_join(request: HttpRequest, code: str) -> HttpResponse:
    # The code is the visitor's own (it is in the address they followed); the page only
    # hands it to the API when they press Join.
    return render(
        request, "frontend/leagues.html", {"page": "league-join", "mode": "join", "code": code}
    )


def rules(request: HttpRequest) -> HttpResponse:
    # docs/rules.md, as the repository has it: how to play and how scores are checked.
    return render(request, "frontend/rules.html", {"page": "rules", "rules": rules_page()})


@ensure_csrf_cookie
def rooms(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/rooms.html",
        {"page": "rooms", "variants": list(VARIANT_LABELS.items())},
    )


@ensure_csrf_cookie
def room(request: HttpRequest, code: str) -> HttpResponse:
    # Only the code: the room, the race and its board come from the API and the WebSocket.
    return render(request, "frontend/room.html", {"page": "room", "code": code})
