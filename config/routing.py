"""WebSocket routes of the whole site; each app owns its own list."""

from leaderboards.routing import websocket_urlpatterns as leaderboards_websockets
from rooms.routing import websocket_urlpatterns as rooms_websockets

websocket_urlpatterns = [*leaderboards_websockets, *rooms_websockets]
