"""WebSocket routes of the whole site; each app owns its own list."""

from games.routing import websocket_urlpatterns as games_websockets
from leaderboards.routing import websocket_urlpatterns as leaderboards_websockets
from rooms.routing import websocket_urlpatterns as rooms_websockets

websocket_urlpatterns = [*games_websockets, *leaderboards_websockets, *rooms_websockets]
