"""One JSON shape for every API error: {"error": {"code", "message", "details"}}.

DRF's own exceptions (validation, authentication, 404, throttling, …) are reshaped
here, and domain errors raised by services are mapped to HTTP in this one place:
subclass `DomainError`, or register an existing exception type (e.g. the engine's
`IllegalMoveError`, which must not import Django) with `register_domain_error`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
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


_REGISTERED: dict[type[Exception], _Mapping] = {}


def register_domain_error(
    exc_type: type[Exception],
    *,
    http_status: int,
    code: str,
    details: Callable[[Exception], Any] | None = None,
) -> None:
    """Map an exception type that cannot subclass DomainError (say, the engine's) to HTTP."""
    _REGISTERED[exc_type] = _Mapping(http_status, code, details)


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details}}


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
        return Response(error_body(mapping.code, str(exc), details), status=mapping.http_status)

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's 500 handling (and logging) applies

    if isinstance(exc, exceptions.ValidationError):
        code, message, details = "invalid", "The request is not valid.", response.data
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
