"""Records where a player starts a daily from, and gives browsers their device cookie."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from reviews.sightings import set_minted_device, sighting_record

# The routes after whose success the player is seen (sign-up and log-in send
# accounts.signals.account_signed_in instead, as their user is known only to the view).
SIGHTED_ROUTES = frozenset({"challenge-start"})


class DeviceCookieMiddleware:
    """After a successful start of a daily, a sighting of its player; on any response, the
    device cookie minted for the request (reviews.sightings)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = request.resolver_match
        user = getattr(request, "user", None)
        if (
            match is not None
            and match.url_name in SIGHTED_ROUTES
            and response.status_code in (200, 201)
            and user is not None
            and user.is_authenticated
        ):
            sighting_record(request, user)
        set_minted_device(request, response)
        return response
