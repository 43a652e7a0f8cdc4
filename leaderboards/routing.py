"""WebSocket routes owned by the leaderboards app (live leaderboards come later).

Entries are `django.urls.path(...)`/`re_path(...)` to a consumer's `.as_asgi()`;
config/routing.py collects them.
"""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
