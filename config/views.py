"""Service-level endpoints: health, and the API's 404 (the API root: config/api_root.py)."""

from __future__ import annotations

from typing import Any

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


def health_status() -> dict[str, Any]:
    layer_backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    return {
        "database": {"vendor": connection.vendor, "status": _database_status()},
        "channel_layer": {
            "backend": layer_backend,
            "kind": "redis" if "Redis" in layer_backend else "in-memory",
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
