"""Every answer of the play path matches the OpenAPI schema the API publishes, strictly: no
field missing, none extra, each of its type. Some serializers pass the engine's objects
through unchecked for speed (``StateViewSerializer``): a change to the engine's view would
change the API unseen, and this test is what sees it.

The schema (drf-spectacular's, as ``/api/v1/schema/`` serves it) is turned into JSON Schema:
``$ref`` resolved, OpenAPI's ``nullable`` as a null alternative, and objects closed
(``additionalProperties: false``) wherever the schema lists their properties.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.factories import make_player
from tests.games.api_support import client_for, solution_of, todays_challenge

pytestmark = pytest.mark.django_db

PREFIX = "/api/v1"


@cache
def openapi() -> dict[str, Any]:
    return dict(SchemaGenerator().get_schema(request=None, public=True))


def strict(node: Any, components: dict[str, Any]) -> Any:
    """The OpenAPI schema ``node`` as a closed JSON Schema."""
    if isinstance(node, list):
        return [strict(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return strict(components[node["$ref"].rsplit("/", 1)[-1]], components)
    out = {key: strict(value, components) for key, value in node.items() if key != "nullable"}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def response_schema(method: str, template: str, status: int) -> dict[str, Any]:
    document = openapi()
    operation = document["paths"][f"{PREFIX}/{template}"][method.lower()]
    response = operation["responses"][str(status)]
    body = response["content"]["application/json"]["schema"]
    return dict(strict(body, document["components"]["schemas"]))


def conforms(answer: Any, method: str, template: str) -> Any:
    """The answer's body, checked against its operation's schema for its status."""
    body = answer.json()
    schema = response_schema(method, template, answer.status_code)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(body), key=str)
    assert not errors, f"{method} {template} {answer.status_code}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
    )
    return body


def test_every_answer_of_a_ranked_game_matches_the_schema() -> None:
    challenge = todays_challenge()
    line = solution_of(challenge.deal)
    client = client_for(make_player())
    anonymous = APIClient()

    conforms(anonymous.get(f"{PREFIX}/challenges/today/"), "GET", "challenges/today/")
    conforms(client.get(f"{PREFIX}/challenges/today/"), "GET", "challenges/today/")
    detail = "challenges/{challenge_id}/"
    conforms(client.get(f"{PREFIX}/challenges/{challenge.pk}/"), "GET", detail)
    start = "challenges/{challenge_id}/start/"
    attempt = conforms(client.post(f"{PREFIX}/challenges/{challenge.pk}/start/"), "POST", start)
    conforms(client.post(f"{PREFIX}/challenges/{challenge.pk}/start/"), "POST", start)  # 200
    actions_path = f"{PREFIX}/attempts/{attempt['id']}/actions/"
    actions = "attempts/{attempt_id}/actions/"
    conforms(
        client.post(actions_path, {"offset": 0, "actions": ["t1-t1"]}, format="json"),
        "POST",
        actions,
    )
    conforms(
        client.post(actions_path, {"offset": 9, "actions": ["undo"]}, format="json"),
        "POST",
        actions,
    )
    half = len(line) // 2
    body = conforms(
        client.post(actions_path, {"offset": 0, "actions": line[:half]}, format="json"),
        "POST",
        actions,
    )
    assert body["offset"] == half
    conforms(client.get(f"{PREFIX}/attempts/{attempt['id']}/"), "GET", "attempts/{attempt_id}/")
    body = conforms(
        client.post(actions_path, {"offset": half, "actions": line[half:]}, format="json"),
        "POST",
        actions,
    )
    assert body["won"] is True
    conforms(client.get(f"{PREFIX}/attempts/{attempt['id']}/"), "GET", "attempts/{attempt_id}/")


def test_a_resigned_practice_game_matches_the_schema() -> None:
    from games.models import Deal
    from tests.games.api_support import solved_deal

    solved_deal(pool=Deal.Pool.PRACTICE)
    client = client_for(make_player())
    attempt = conforms(client.post(f"{PREFIX}/practice/start/"), "POST", "practice/start/")
    resign = "attempts/{attempt_id}/resign/"
    conforms(client.post(f"{PREFIX}/attempts/{attempt['id']}/resign/"), "POST", resign)
    conforms(client.get(f"{PREFIX}/attempts/{attempt['id']}/"), "GET", "attempts/{attempt_id}/")


def test_a_view_with_a_field_the_schema_lacks_is_caught() -> None:
    """The check itself: an engine view with one more key does not pass."""
    schema = response_schema("GET", "challenges/{challenge_id}/", 200)
    state = schema["properties"]["state"]
    view = {
        "variant": "spider1",
        "tableau": [[None, "KS"]],
        "face_down": [1],
        "cells": [],
        "foundations": [],
        "stock": [None],
        "won": False,
    }
    jsonschema.validate(view, state)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**view, "secret": "AS"}, state)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({k: v for k, v in view.items() if k != "won"}, state)
