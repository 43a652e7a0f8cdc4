"""WebSocket routes of the whole site; each app owns its own list. Any other address is
refused at the handshake (core.live.UnknownPathDenier), not a server error."""

from django.urls import re_path

from core.live import UnknownPathDenier
from games.routing import websocket_urlpatterns as games_websockets
from leaderboards.routing import websocket_urlpatterns as leaderboards_websockets
from rooms.routing import websocket_urlpatterns as rooms_websockets

websocket_urlpatterns = [
    *games_websockets,
    *leaderboards_websockets,
    *rooms_websockets,
    re_path(r"", UnknownPathDenier.as_asgi()),
]
