"""Service-level endpoints: health and the API root."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

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


class ApiRootApi(APIView):
    """Lists the API's endpoints; later issues add the game's."""

    @extend_schema(
        responses=inline_serializer(
            "ApiRoot", fields={"endpoints": serializers.DictField(child=serializers.URLField())}
        )
    )
    def get(self, request: Request) -> Response:
        names = {
            "health": "health",
            "schema": "api-schema",
            "docs": "api-docs",
            "admin": "admin:index",
        }
        return Response(
            {"endpoints": {key: reverse(name, request=request) for key, name in names.items()}}
        )


@csrf_exempt  # it changes nothing; a CSRF check would answer an HTML 403 instead of the 404
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Unknown paths under /api/ answer in the API's error shape, not an HTML page."""
    return JsonResponse(error_body("not_found", f"No API endpoint at {request.path}."), status=404)
