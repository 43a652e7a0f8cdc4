"""Every operation of the OpenAPI schema, with generated and hostile input, never a 5xx.

The schema the server publishes (``/api/v1/schema/``) names the operations; hypothesis
draws for each request an operation, who asks (nobody, or a player by token), path values
(real ids, huge numbers, NUL, lone surrogates, slashes, text), query parameters (the
schema's and strangers, with hostile values), and a body (the schema's fields with hostile
values, any JSON, JSON nested thousands deep, numbers of 5,000 digits, megabytes, bytes
that are not UTF-8, the wrong content type). Against the real app and PostgreSQL, each
answer must be:

- never a 5xx (but a 503 the schema documents for the operation, e.g. no practice deal);
- every 4xx in the API's one error shape, ``{"error": {"code", "message", "details"}}``;
- after a 4xx nothing stored: no account, token, attempt or action more than before.

About half a minute in CI (``FUZZ_EXAMPLES``, default 700, sets the number of requests).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token

from games.models import Attempt, Deal
from tests.factories import make_player
from tests.fuzz.hostile import (
    HUGE_NUMBERS,
    encode_path_value,
    json_value,
    nasty_number,
    nasty_text,
    query_string,
    raw_body,
    shaped_body,
)
from tests.games.api_support import solved_deal, todays_challenge
from tests.games.conftest import OTHER_QUICK_SEED

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("fresh_throttles"),
]

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "700"))
SCHEMA_TYPES = {"integer": nasty_number, "string": nasty_text, "boolean": st.booleans()}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # with {name} placeholders
    path_params: tuple[str, ...]
    query_params: tuple[str, ...]
    body_fields: tuple[str, ...] | None  # None: the operation takes no body
    documented: tuple[int, ...]  # the statuses the schema lists


def operations_of(schema: dict[str, Any]) -> list[Operation]:
    found = []
    components = schema.get("components", {}).get("schemas", {})
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            parameters = operation.get("parameters", [])
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            fields: tuple[str, ...] | None = None
            if body is not None:
                ref = body["schema"].get("$ref", "")
                fields = tuple(components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {}))
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    path_params=tuple(p["name"] for p in parameters if p["in"] == "path"),
                    query_params=tuple(p["name"] for p in parameters if p["in"] == "query"),
                    body_fields=fields,
                    documented=tuple(int(code) for code in operation.get("responses", {})),
                )
            )
    return found


@pytest.fixture
def world() -> dict[str, Any]:
    """A player with a token and a started attempt: real ids for the path values."""
    challenge = todays_challenge()
    solved_deal(pool=Deal.Pool.PRACTICE, seed=OTHER_QUICK_SEED)  # practice/start has one
    player = make_player("fuzzed")
    token = Token.objects.create(user=player)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    started = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert started.status_code == 201
    schema = Client().get("/api/v1/schema/?format=json").json()
    return {
        "player": player,
        "token": token.key,
        "ids": [challenge.pk, started.json()["id"]],
        "operations": operations_of(schema),
    }


def stored() -> tuple[int, ...]:
    """What a refused request must not change."""
    return (
        get_user_model().objects.count(),
        Attempt.objects.count(),
        Attempt.objects.aggregate(total=Sum("action_count"))["total"] or 0,
        Attempt.objects.exclude(ended_at=None).count(),
    )


def path_value(ids: list[int]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from([str(i) for i in ids]),
        st.sampled_from([str(n) for n in HUGE_NUMBERS]),
        nasty_text.filter(bool),
        st.sampled_from(["fuzzed", "a/b", "..", "%", "0x10", "1e3", " 1"]),
    )


@st.composite
def requests(draw: st.DrawFn, world: dict[str, Any]) -> dict[str, Any]:
    operation: Operation = draw(st.sampled_from(world["operations"]))
    path = operation.path
    for name in operation.path_params:
        value = draw(path_value(world["ids"]))
        path = path.replace("{" + name + "}", encode_path_value(value))
    names = [*operation.query_params, "offset", "limit", "format", "x"]
    query = draw(
        st.dictionaries(
            st.sampled_from(names),
            st.one_of(nasty_text, nasty_number.map(str)),
            max_size=4,
        )
    )
    if query:
        path += "?" + query_string(query)
    method = draw(st.one_of(st.just(operation.method), st.sampled_from(["GET", "PUT", "PATCH"])))
    content_type = "application/json"
    body = b""
    if operation.body_fields is not None or draw(st.booleans()):
        fields = dict.fromkeys(operation.body_fields or (), json_value)
        kind = draw(st.sampled_from(["shaped", "any", "raw", "form"]))
        if kind == "shaped":
            body = json.dumps(draw(shaped_body(fields))).encode()
        elif kind == "any":
            body = json.dumps(draw(json_value)).encode()
        elif kind == "raw":
            body = draw(raw_body)
        else:
            content_type = draw(
                st.sampled_from(
                    ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]
                )
            )
            body = draw(st.sampled_from([b"a=1&" * 1200, b"username=x&password=%00", b"\x00"]))
    signed_in = draw(st.booleans())
    return {
        "documented": operation.documented if method == operation.method else (),
        "method": method,
        "path": path,
        "body": body,
        "content_type": content_type,
        "signed_in": signed_in,
    }


ERROR_KEYS = {"code", "message", "details"}


def check_answer(request: dict[str, Any], response: Any, before: tuple[int, ...]) -> None:
    where = f"{request['method']} {request['path'][:200]} body {request['body'][:120]!r}"
    # A 503 the schema documents (no practice deal ready, hints busy) is an answer, not a
    # failure; any other 5xx is.
    documented_503 = response.status_code == 503 and 503 in request["documented"]
    assert response.status_code < 500 or documented_503, f"{response.status_code} for {where}"
    if response.status_code < 400:
        return
    assert response["Content-Type"].startswith("application/json"), where
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == ERROR_KEYS, (where, body)
    assert isinstance(body["error"]["code"], str) and body["error"]["message"], (where, body)
    assert stored() == before, f"a {response.status_code} stored something: {where}"


def test_every_operation_with_hostile_input_answers_4xx_json_or_success(
    world: dict[str, Any],
) -> None:
    assert len(world["operations"]) >= 20, "the schema lists the API's operations"
    anonymous = Client(raise_request_exception=False)
    player = Client(raise_request_exception=False)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=requests(world))
    def one_request(request: dict[str, Any]) -> None:
        # The token may have been revoked by an earlier request (logout, auth/tokens/).
        Token.objects.get_or_create(user=world["player"], defaults={"key": world["token"]})
        client = player if request["signed_in"] else anonymous
        extra: dict[str, Any] = (
            {"HTTP_AUTHORIZATION": f"Token {world['token']}"} if request["signed_in"] else {}
        )
        before = stored()
        response = client.generic(
            request["method"],
            request["path"],
            request["body"],
            content_type=request["content_type"],
            **extra,
        )
        check_answer(request, response, before)

    one_request()


def test_the_operations_come_from_the_published_schema(world: dict[str, Any]) -> None:
    paths = {op.path for op in world["operations"]}
    assert "/api/v1/attempts/{attempt_id}/actions/" in paths
    assert "/api/v1/leaderboards/players/{username}/" in paths
    assert all(re.match(r"^/api/v1/", path) for path in paths)
