"""Service-level endpoints: health, and the API's 404 (the API root: core/api_root.py)."""

from __future__ import annotations

import socket
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from core.api_errors import error_body


def _database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"error: {exc.__class__.__name__}"
    return "ok"


def channel_layer_kind(layer: object) -> str:
    """What the process's channel layer really is, from the object: ``redis`` when it is
    one of channels-redis' layers (core.live's pub/sub layer is one), ``in-memory`` for
    Channels' own, else its class name."""
    if layer is None:
        return "none"
    if any(cls.__module__.startswith("channels_redis.") for cls in type(layer).__mro__):
        return "redis"
    if isinstance(layer, InMemoryChannelLayer):
        return "in-memory"
    return type(layer).__name__


def health_status() -> dict[str, Any]:
    layer = get_channel_layer()
    return {
        # which server answered (a container's hostname behind the proxy): for operators and
        # the compose smoke test (scripts/compose_smoke.py) to tell the replicas apart
        "replica": socket.gethostname(),
        "database": {"vendor": connection.vendor, "status": _database_status()},
        "channel_layer": {
            "backend": settings.CHANNEL_LAYERS["default"]["BACKEND"],
            "kind": channel_layer_kind(layer),
        },
        "celery": {
            "broker": "redis" if settings.REDIS_URL else "none (tasks run in-process)",
            "eager": settings.CELERY_TASK_ALWAYS_EAGER,
        },
    }


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and configuration: 200 when the database answers, 503 otherwise."""
    body = health_status()
    healthy = body["database"]["status"] == "ok"
    body = {"status": "ok" if healthy else "error", **body}
    return JsonResponse(body, status=200 if healthy else 503)


@csrf_exempt  # it changes nothing; a CSRF check would answer an HTML 403 instead of the 404
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Unknown paths under /api/ answer in the API's error shape, not an HTML page."""
    return JsonResponse(error_body("not_found", f"No API endpoint at {request.path}."), status=404)
