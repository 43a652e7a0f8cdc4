"""``GET /metrics/``: the Prometheus scrape (docs/metrics.md).

Off unless ``METRICS_ENABLED``: then the path answers exactly as an unknown one (404).
With ``METRICS_TOKEN`` set, only ``Authorization: Bearer <token>`` reads it (401
otherwise). Not part of the public API: not under /api/v1/ nor in its schema.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from core.api_errors import error_body
from core.metrics import CONTENT_TYPE, exposition


def bearer_token_ok(request: HttpRequest, token: str) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_ENABLED:
        raise Http404
    if settings.METRICS_TOKEN and not bearer_token_ok(request, settings.METRICS_TOKEN):
        response = JsonResponse(
            error_body(
                "not_authenticated",
                "The metrics need 'Authorization: Bearer <METRICS_TOKEN>'.",
            ),
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE)
