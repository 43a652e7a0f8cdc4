"""Refuse hostile requests before any view or database sees them, in the API's error shape.

- A NUL character in the path or the query string: PostgreSQL cannot store or compare
  text holding one (psycopg refuses the parameter), so a path value such as
  ``/api/v1/leaderboards/players/%00/`` would end in a 500. It names nothing: 404 for a
  path, 400 for a query string.
- A body larger than the view needs: every API view has a byte budget
  (``max_body_bytes`` on the view class, a number or a function giving one, else
  ``DEFAULT_API_BODY_BYTES``); past it the
  answer is 413 ``too_large`` before the body is parsed, so a post costs at most the work
  of its budget. The HTTP bridge (core/wsgi_in_threads.py) has already refused anything
  over the process-wide limit, the same way.

Pages outside the API (the admin, the web client) keep Django's own limits and pages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse

from core.api_errors import error_body

API_PREFIX = "/api/"
# Enough for any JSON object the API takes (credentials, a start) written out at length.
DEFAULT_API_BODY_BYTES = 16 * 1024


def too_large_body(limit: int) -> dict[str, Any]:
    return error_body(
        "too_large",
        f"The request body is over {limit} bytes, the most this endpoint takes.",
        {"limit_bytes": limit},
    )


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIX)


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def body_budget(view_func: Callable[..., Any]) -> int:
    view_class = getattr(view_func, "view_class", None) or getattr(view_func, "cls", None)
    budget = getattr(view_class, "max_body_bytes", DEFAULT_API_BODY_BYTES)
    return int(budget() if callable(budget) else budget)


class RequestGuardMiddleware:
    """NUL characters in the address and oversize API bodies, refused early (see above)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            return self._refuse(request, 404, "not_found", "No such address.", {"where": "path"})
        if "%00" in request.META.get("QUERY_STRING", ""):
            return self._refuse(
                request,
                400,
                "invalid",
                "The query string holds a NUL character.",
                {"where": "query"},
            )
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        if not is_api_path(request.path):
            return None
        limit = body_budget(view_func)
        if _declared_length(request) > limit:
            return JsonResponse(too_large_body(limit), status=413)
        return None

    @staticmethod
    def _refuse(
        request: HttpRequest, status: int, code: str, message: str, details: dict[str, Any]
    ) -> HttpResponse:
        if is_api_path(request.path):
            return JsonResponse(error_body(code, message, details), status=status)
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
