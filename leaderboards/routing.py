"""WebSocket routes owned by the leaderboards app; config/routing.py collects them."""

from django.urls import URLPattern, path

from leaderboards.consumers import ChallengeConsumer
from leaderboards.leagues.consumers import LeagueBoardConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/challenges/<int:challenge_id>/", ChallengeConsumer.as_asgi()),
    path(
        "ws/challenges/<int:challenge_id>/leagues/<int:league_id>/",
        LeagueBoardConsumer.as_asgi(),
    ),
]
