"""One JSON shape for every API error: {"error": {"code", "message", "details"}}.

DRF's own exceptions (validation, authentication, 404, throttling, …) are reshaped
here, and domain errors raised by services are mapped to HTTP in this one place:
subclass `DomainError`, or register an existing exception type (e.g. the engine's
`IllegalMoveError`, which must not import Django) with `register_domain_error` (the
games app registers its error family when it is ready: games/apps.py). The shape's
OpenAPI description (`ErrorSerializer`, `error_response`) lives here too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


class DomainError(Exception):
    """Base for errors a service raises on purpose; the message is for the player."""

    code: str = "domain_error"
    http_status: int = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


@dataclass(frozen=True)
class _Mapping:
    http_status: int
    code: str
    details: Callable[[Exception], Any] | None
    from_attributes: bool = False


_REGISTERED: dict[type[Exception], _Mapping] = {}


def register_domain_error(
    exc_type: type[Exception],
    *,
    http_status: int,
    code: str,
    details: Callable[[Exception], Any] | None = None,
    from_attributes: bool = False,
) -> None:
    """Map an exception type that cannot subclass DomainError (say, the engine's) to HTTP.

    With ``from_attributes`` the exception's own ``code``, ``http_status`` and ``details``
    attributes (when present) override the registered ones: one registration then maps a
    whole family of an app's errors (games.errors.GamesError and its subclasses).
    """
    _REGISTERED[exc_type] = _Mapping(http_status, code, details, from_attributes)


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


def _registered_mapping(exc: Exception) -> _Mapping | None:
    for klass in type(exc).__mro__:
        if klass in _REGISTERED:
            return _REGISTERED[klass]
    return None


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

    mapping = _registered_mapping(exc)
    if mapping is not None:
        details = mapping.details(exc) if mapping.details else getattr(exc, "details", None)
        code, http_status = mapping.code, mapping.http_status
        if mapping.from_attributes:
            code = str(getattr(exc, "code", code))
            http_status = int(getattr(exc, "http_status", http_status))
        message = str(getattr(exc, "message", None) or exc)
        return Response(error_body(code, message, details), status=http_status)

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
