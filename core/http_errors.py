"""Django's error pages for the API's paths, in the API's one error shape.

DRF answers what happens inside a view; Django answers the rest with HTML: a request it
refuses before the view (``SuspiciousOperation`` such as too many query parameters, a
body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``), a CSRF failure outside DRF, an unhandled
exception. Under ``/api/`` those answers are JSON too; elsewhere Django's pages stay.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from core.api_errors import error_body
from core.request_guard import is_api_path


def bad_request(request: HttpRequest, exception: Exception, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        message = str(exception) or "The request is not valid."
        return JsonResponse(
            error_body("bad_request", message, {"reason": type(exception).__name__}), status=400
        )
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        return JsonResponse(error_body("permission_denied", "Permission denied."), status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        return JsonResponse(
            error_body("not_found", "Not found.", {"path": request.path}), status=404
        )
    return defaults.page_not_found(request, exception)


def server_error_body() -> dict[str, Any]:
    return error_body("server_error", "The server failed to answer; it has been logged.")


def server_error(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        return JsonResponse(server_error_body(), status=500)
    return defaults.server_error(request)
