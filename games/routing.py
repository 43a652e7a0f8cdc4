"""WebSocket routes owned by the games app; config/routing.py collects them."""

from django.urls import URLPattern, path

from games.api.play_socket import PlaySocketConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/attempts/<int:attempt_id>/play/", PlaySocketConsumer.as_asgi()),
]
