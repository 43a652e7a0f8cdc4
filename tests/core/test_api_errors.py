"""Every API error has one shape: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import pytest
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from core.api_errors import DomainError


class AttemptClosedError(DomainError):
    code = "attempt_closed"
    http_status = status.HTTP_409_CONFLICT


class _Input(serializers.Serializer[dict[str, int]]):
    count = serializers.IntegerField(min_value=1)


class RaisingApi(APIView):
    raised: Exception | None = None

    def post(self, request: Request) -> Response:
        if self.raised is not None:
            raise self.raised
        _Input(data=request.data).is_valid(raise_exception=True)
        return Response({"ok": True})


def call(raised: Exception | None = None, data: dict[str, object] | None = None) -> Response:
    request = APIRequestFactory().post("/x/", data or {}, format="json")
    view = RaisingApi.as_view(raised=raised)
    response: Response = view(request)
    return response


def test_validation_errors_carry_the_fields_in_details() -> None:
    response = call(data={"count": 0})
    assert response.status_code == 400
    error = response.data["error"]
    assert error["code"] == "invalid"
    assert "count" in error["details"]


def test_drf_exceptions_keep_their_status_and_code() -> None:
    response = call(NotAuthenticated())
    assert response.status_code in (401, 403)
    assert response.data["error"]["code"] == "not_authenticated"
    assert response.data["error"]["details"] is None


def test_domain_errors_map_to_their_status() -> None:
    response = call(AttemptClosedError("This attempt is over.", details={"attempt": 7}))
    assert response.status_code == 409
    assert response.data == {
        "error": {
            "code": "attempt_closed",
            "message": "This attempt is over.",
            "details": {"attempt": 7},
        }
    }


def test_an_error_may_override_its_class_code() -> None:
    response = call(AttemptClosedError("Refused.", code="day_closed"))
    assert response.status_code == 409
    assert response.data["error"]["code"] == "day_closed"


def test_the_games_family_is_one_with_the_domain_errors() -> None:
    from games.errors import GamesError, OffsetConflictError

    assert issubclass(GamesError, DomainError)
    response = call(OffsetConflictError("Stale.", details={"offset": 4}))
    assert response.status_code == 409
    assert response.data["error"] == {
        "code": "offset_conflict",
        "message": "Stale.",
        "details": {"offset": 4},
    }


def test_unexpected_errors_are_not_swallowed() -> None:
    with pytest.raises(ZeroDivisionError):
        call(ZeroDivisionError("bug"))
