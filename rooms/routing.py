"""WebSocket routes owned by the rooms app; config/routing.py collects them."""

from django.urls import URLPattern, path

from rooms.consumers import LobbyConsumer, RoomConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/rooms/", LobbyConsumer.as_asgi()),
    path("ws/rooms/<str:code>/", RoomConsumer.as_asgi()),
]
