"""Django's error pages for the API's paths, in the API's one error shape.

DRF answers what happens inside a view; Django answers the rest with HTML: a request it
refuses before the view (``SuspiciousOperation`` such as too many query parameters, a
body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``), a CSRF failure outside DRF, an unhandled
exception. Under ``/api/`` those answers are JSON too; elsewhere Django's pages stay.

An unhandled exception that says the database cannot be reached (PostgreSQL down or
restarting, the pool's wait for a connection over, SQLite's file locked or unopenable) is
no bug of the request: it is answered 503 ``unavailable`` with ``Retry-After``, as the play
socket answers it, so that a client tries again instead of giving up.
"""

from __future__ import annotations

import sys
from typing import Any

import psycopg
from django.db import InterfaceError, OperationalError
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


RETRY_AFTER_SECONDS = 5
# SQLite's words for a database it cannot use now (any other OperationalError of SQLite,
# "no such table" say, is a bug: a 500).
SQLITE_UNAVAILABLE = ("database is locked", "unable to open database file", "disk i/o error")


def database_unavailable(error: BaseException | None) -> bool:
    """Does ``error`` (or what caused it) say that the database cannot be reached now?"""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, (psycopg.OperationalError, InterfaceError)):
            return True
        if isinstance(error, OperationalError) and str(error).lower().startswith(
            SQLITE_UNAVAILABLE
        ):
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False


def unavailable_body() -> dict[str, Any]:
    return error_body(
        "unavailable",
        "The database cannot be reached just now: try again in a few seconds.",
        {"retry_after": RETRY_AFTER_SECONDS},
    )


def server_error(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    # Django calls this view inside its handler's ``except`` block: the exception is there.
    if database_unavailable(sys.exc_info()[1]):
        response: HttpResponse
        if is_api_path(request.path):
            response = JsonResponse(unavailable_body(), status=503)
        else:
            response = HttpResponse(
                "The service is briefly unavailable: try again in a few seconds.",
                content_type="text/plain; charset=utf-8",
                status=503,
            )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if is_api_path(request.path):
        return JsonResponse(server_error_body(), status=500)
    return defaults.server_error(request)
