"""Request latency by route: a Prometheus histogram kept by a middleware (docs/metrics.md).

The route is the URL pattern that answered (``api/v1/attempts/<int:attempt_id>/actions/``),
never the path itself, so ids do not multiply the series; a request answered before its
URL was resolved (refused early, a static file, no such page) counts as ``(unresolved)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from prometheus_client import Histogram

from core.metrics import PREFIX

UNRESOLVED = "(unresolved)"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

HTTP_REQUEST_SECONDS = Histogram(
    f"{PREFIX}_http_request_duration_seconds",
    "Seconds from the request reaching Django to its response, by method, URL pattern and "
    "status code.",
    ["method", "route", "status"],
)


def route_of(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else UNRESOLVED


class RequestMetricsMiddleware:
    """First in the chain: it times every request, the refused ones too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in METHODS else "other"
        HTTP_REQUEST_SECONDS.labels(method, route_of(request), str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response
