"""schemathesis against the API's own OpenAPI schema (``/api/v1/schema/``), in process.

Every operation the schema publishes gets ``SCHEMATHESIS_EXAMPLES`` generated requests
(default 8) from schemathesis's own strategies, in both its modes: inputs the schema
allows, and inputs it forbids (wrong types, values out of range, missing fields). Each is
sent twice, by API token and by a signed-in browser's session (with its CSRF token), to
the real app and database. Each answer must be:

- never a 5xx but a 503 the schema documents for that operation (no practice deal ready,
  hints busy);
- every 4xx in the API's one error shape ``{"error": {"code", "message", "details"}}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from django.test import Client
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode

from tests.factories import make_player
from tests.games.api_support import todays_challenge

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "8"))
COVERAGE = os.environ.get("SCHEMATHESIS_COVERAGE", "").lower() in ("1", "true", "yes")
# What a 4xx answer must look like.
ERROR_KEYS = {"code", "message", "details"}


@pytest.fixture
def api_schema(transactional_db: None) -> Any:
    """The schema as the app serves it (the test database set up first: the app's
    requests run on this thread's connection)."""
    loaded = schemathesis.openapi.from_wsgi("/api/v1/schema/", get_wsgi_application())
    # Inputs the schema allows and inputs it forbids (wrong types, out of range, missing).
    loaded.config.generation.modes = list(GenerationMode)
    # Who asks is ours to say (a real token, a real session), not generated credentials.
    loaded.config.generation.with_security_parameters = False
    # The coverage phase (every boundary and wrong type of every parameter, as explicit
    # examples: about 4 minutes) only when asked; the bounded random phase always.
    loaded.config.phases.coverage.enabled = COVERAGE
    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def callers(transactional_db: None, fresh_throttles: None) -> Callable[[], dict[str, Any]]:
    """Request extras of a player by token and of another by session (cookie and CSRF),
    made anew for each case: an operation may revoke the token or end the session."""
    todays_challenge()  # a day to play, so that ids of real rows come up too
    by_token, by_session = make_player("schema-token"), make_player("schema-session")

    def fresh() -> dict[str, Any]:
        token, _ = Token.objects.get_or_create(user=by_token)
        browser = Client()
        browser.force_login(by_session)
        browser.get("/api/v1/auth/me/")  # sets the CSRF cookie
        cookies = {name: morsel.value for name, morsel in browser.cookies.items()}
        return {
            "token": {"headers": {"Authorization": f"Token {token.key}"}},
            "session": {
                "headers": {"X-CSRFToken": cookies["csrftoken"], "Referer": "http://testserver/"},
                "cookies": cookies,
            },
        }

    return fresh


def documented_503(case: Any) -> bool:
    return "503" in case.operation.definition.raw.get("responses", {})


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_operation_answers_without_a_server_error(
    case: Any, callers: Callable[[], dict[str, Any]]
) -> None:
    for who, extras in callers().items():
        headers = {**(case.headers or {}), **extras["headers"]}
        response = case.call(headers=headers, cookies=extras.get("cookies"))
        where = f"{who}: {case.method} {case.formatted_path} -> {response.status_code}"
        if response.status_code >= 500:
            assert response.status_code == 503 and documented_503(case), (
                where,
                response.text[:300],
            )
        elif response.status_code >= 400:
            body = response.json()
            assert set(body) == {"error"} and set(body["error"]) == ERROR_KEYS, (where, body)
