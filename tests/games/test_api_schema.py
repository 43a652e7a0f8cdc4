"""The OpenAPI schema describes the play API: requests, responses and the error shape."""

from __future__ import annotations

import pytest
import yaml
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/v1/auth/signup/", "post"): {"201", "400", "403", "429"},
    ("/api/v1/auth/login/", "post"): {"200", "400", "403", "429"},
    ("/api/v1/auth/logout/", "post"): {"204", "401"},
    ("/api/v1/auth/me/", "get"): {"200"},
    ("/api/v1/auth/token/", "post"): {"200", "400", "429"},
    ("/api/v1/challenges/today/", "get"): {"200"},
    ("/api/v1/challenges/{challenge_id}/", "get"): {"200", "404"},
    ("/api/v1/challenges/{challenge_id}/start/", "post"): {"200", "201", "401", "404", "409"},
    ("/api/v1/practice/start/", "post"): {"201", "400", "401", "503"},
    ("/api/v1/challenges/{challenge_id}/practice/", "post"): {"201", "401", "404", "409"},
    ("/api/v1/archive/", "get"): {"200", "400"},
    ("/api/v1/leaderboards/attempts/{attempt_id}/would-rank/", "get"): {
        "200",
        "401",
        "403",
        "404",
    },
    ("/api/v1/attempts/{attempt_id}/", "get"): {"200", "401", "404"},
    ("/api/v1/attempts/{attempt_id}/actions/", "post"): {"200", "400", "401", "404", "409", "429"},
    ("/api/v1/attempts/{attempt_id}/resign/", "post"): {"200", "401", "404", "409"},
    ("/api/v1/attempts/{attempt_id}/hint/", "get"): {"200", "401", "403", "404", "409"},
}


def test_every_play_operation_is_described() -> None:
    response = APIClient().get("/api/v1/schema/")
    assert response.status_code == 200
    document = yaml.safe_load(response.content)
    paths = document["paths"]
    for (path, method), codes in OPERATIONS.items():
        operation = paths[path][method]
        assert codes <= set(operation["responses"]), (path, method)
        for code in codes - {"200", "201", "204"}:
            content = operation["responses"][code]["content"]["application/json"]
            assert content["schema"]["$ref"].endswith("/Error"), (path, method, code)
    actions = paths["/api/v1/attempts/{attempt_id}/actions/"]["post"]
    request = actions["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert request.endswith("/AttemptActionsRequest")
    components = document["components"]["schemas"]
    assert set(components["AttemptActionsRequest"]["required"]) == {"offset", "actions"}
    state = components["StateView"]["properties"]
    assert list(state) == [
        "variant",
        "tableau",
        "face_down",
        "cells",
        "foundations",
        "stock",
        "won",
    ]


def test_a_bad_token_is_a_documented_401_on_public_operations_too() -> None:
    document = yaml.safe_load(APIClient().get("/api/v1/schema/").content)
    public = document["paths"]["/api/v1/challenges/today/"]["get"]
    assert "401" in public["responses"]
    assert public["responses"]["401"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/Error"
    )
    # The token endpoint reads no credentials: no 401 is promised there.
    assert "401" not in document["paths"]["/api/v1/auth/token/"]["post"]["responses"]

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)  # unknown (say, revoked)
    answer = client.get("/api/v1/challenges/today/")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "authentication_failed"
