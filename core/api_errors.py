"""One JSON shape for every API error: {"error": {"code", "message", "details"}}.

DRF's own exceptions (validation, authentication, 404, throttling, …) are reshaped
here, and domain errors raised by services are mapped to HTTP in this one place: every
app's refusals subclass `DomainError` (games.errors.GamesError and its family, the
accounts' errors), each carrying its own code and HTTP status. The shape's OpenAPI
description (`ErrorSerializer`, `error_response`) lives here too.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


class DomainError(Exception):
    """Base for errors a service raises on purpose; the message is for the player.

    ``code`` is machine-readable, ``http_status`` the status it stands for (the services
    never import the web layer: the handler below reads these attributes); one instance
    may override its class's code (an action refused as invalid or as illegal, say).
    """

    code: str = "domain_error"
    http_status: int = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, *, details: Any = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        if code is not None:
            self.code = code


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details}}


class ErrorBodySerializer(serializers.Serializer[Any]):
    code = serializers.CharField(
        help_text="Machine-readable, e.g. illegal_action, offset_conflict."
    )
    message = serializers.CharField(help_text="For the person who asked.")
    details = serializers.JSONField(allow_null=True, help_text="Depends on the code.")


class ErrorSerializer(serializers.Serializer[Any]):
    error = ErrorBodySerializer()

    class Meta:
        ref_name = "Error"


def error_response(description: str) -> OpenApiResponse:
    """An error answer in the OpenAPI schema: the one shape, described for this case."""
    return OpenApiResponse(ErrorSerializer, description=description)


def _first_code(codes: Any) -> str:
    if isinstance(codes, str):
        return codes
    if isinstance(codes, dict):
        return "invalid"
    if isinstance(codes, list) and codes:
        return _first_code(codes[0])
    return "error"


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.http_status)

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's 500 handling (and logging) applies

    if isinstance(exc, exceptions.ValidationError):
        code, message, details = "invalid", "The request is not valid.", response.data
    elif isinstance(exc, exceptions.Throttled):
        code, message, details = "throttled", str(exc.detail), {"wait": getattr(exc, "wait", None)}
    elif isinstance(exc, exceptions.APIException):
        code, message, details = _first_code(exc.get_codes()), str(exc.detail), None
    elif isinstance(exc, Http404):
        code, message, details = "not_found", "Not found.", None
    elif isinstance(exc, PermissionDenied):
        code, message, details = "permission_denied", "Permission denied.", None
    else:  # pragma: no cover - DRF only handles the types above
        code, message, details = "error", str(exc), None
    response.data = error_body(code, message, details)
    return response
