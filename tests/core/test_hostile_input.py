"""Hostile input gets a 4xx in the API's error shape, never a 500 nor an HTML page.

Each case here was a 500 (or an HTML 400) before the guards: huge numbers reaching
PostgreSQL, NUL characters in the address, JSON nested thousands deep, bodies of megabytes,
thousands of query parameters.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.test import Client

from games.models import Attempt
from tests.factories import make_challenge, make_player
from tests.games.api_support import client_for, todays_challenge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_throttles")]

DEEP = "[" * 5000 + "]" * 5000


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    return dict(body["error"])


def anonymous() -> Client:
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("offset", ["9223372036854775808", "100000000000000000000"])
def test_a_board_offset_past_bigint_is_a_400_naming_it(offset: str) -> None:
    challenge = make_challenge()
    response = anonymous().get(f"/api/v1/leaderboards/challenges/{challenge.pk}/?offset={offset}")
    assert "offset" in error_of(response, 400)["details"]


def test_a_nul_character_in_a_path_value_is_a_404() -> None:
    error = error_of(anonymous().get("/api/v1/leaderboards/players/%00/"), 404)
    assert error["code"] == "not_found"
    error_of(anonymous().get("/api/v1/leaderboards/players/ab%00cd/"), 404)


def test_a_nul_character_in_the_query_string_is_a_400() -> None:
    error = error_of(anonymous().get("/api/v1/leaderboards/streaks/?variant=%00"), 400)
    assert error["details"] == {"where": "query"}


def test_thousands_of_query_parameters_are_a_400_in_the_json_shape() -> None:
    query = "&".join(["a=1"] * 1200)
    error = error_of(anonymous().get(f"/api/v1/leaderboards/alltime/?{query}"), 400)
    assert "DATA_UPLOAD_MAX_NUMBER_FIELDS" in error["message"]


def test_json_nested_5000_deep_is_a_400() -> None:
    response = anonymous().post("/api/v1/auth/token/", DEEP, content_type="application/json")
    assert error_of(response, 400)["code"] == "parse_error"


def test_a_body_of_megabytes_is_a_413_before_it_is_parsed() -> None:
    for size in (3 * 1024 * 1024, 64 * 1024):
        body = '{"username": "' + "x" * size + '"}'
        response = anonymous().post("/api/v1/auth/token/", body, content_type="application/json")
        error = error_of(response, 413)
        assert error["code"] == "too_large" and error["details"]["limit_bytes"] < size


def test_form_bodies_with_too_many_fields_are_a_json_error() -> None:
    body = "&".join(["a=1"] * 1200)
    response = anonymous().post(
        "/api/v1/auth/token/", body, content_type="application/x-www-form-urlencoded"
    )
    error_of(response, 400)


def test_an_unknown_api_address_with_odd_characters_is_a_json_404() -> None:
    error_of(anonymous().get("/api/v1/nothing/%ff%fe/"), 404)


@pytest.fixture
def attempt_client() -> tuple[Any, Attempt]:
    challenge = todays_challenge()
    client = client_for(make_player())
    response = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert response.status_code == 201
    return client, Attempt.objects.get(pk=response.json()["id"])


def post_raw(client: Any, attempt: Attempt, body: str) -> Any:
    return client.generic(
        "POST",
        f"/api/v1/attempts/{attempt.pk}/actions/",
        body,
        content_type="application/json",
    )


def test_an_actions_post_nested_deep_is_a_400_and_stores_nothing(
    attempt_client: tuple[Any, Attempt],
) -> None:
    client, attempt = attempt_client
    error_of(post_raw(client, attempt, '{"offset": 0, "actions": ' + DEEP + "}"), 400)
    attempt.refresh_from_db()
    assert attempt.action_count == 0


def test_an_actions_post_is_refused_by_size_before_it_is_read(
    attempt_client: tuple[Any, Attempt],
) -> None:
    """The issue's 2.19 MB post of 273,000 "undo": 413 at once, not 0.6 s of validation."""
    client, attempt = attempt_client
    body = '{"offset": 0, "actions": [' + ",".join(['"undo"'] * 273_000) + "]}"
    started = time.perf_counter()
    error = error_of(post_raw(client, attempt, body), 413)
    assert time.perf_counter() - started < 0.3
    assert error["details"]["limit_bytes"] < 16 * 1024


def test_an_actions_post_is_refused_by_count_before_its_items_are_checked(
    attempt_client: tuple[Any, Attempt], settings: Any
) -> None:
    client, attempt = attempt_client
    settings.ACTIONS_MAX_BATCH = 5
    # Six items, each of them invalid: only the count is reported.
    error = error_of(
        client.post(
            f"/api/v1/attempts/{attempt.pk}/actions/",
            {"offset": 0, "actions": [1, 2, 3, 4, 5, 6]},
            format="json",
        ),
        400,
    )
    assert error["details"] == {"actions": ["At most 5 actions a post."]}


def test_an_actions_offset_past_bigint_is_a_400(attempt_client: tuple[Any, Attempt]) -> None:
    client, attempt = attempt_client
    body = '{"offset": 100000000000000000000000, "actions": ["undo"]}'
    assert "offset" in error_of(post_raw(client, attempt, body), 400)["details"]


BIG_IDS = ["9223372036854775808", "10000000000000000001", "99999999999999999999999"]
ATTEMPT_ADDRESSES = [
    ("post", "resign/", None),
    ("post", "actions/", {"offset": 0, "actions": ["undo"]}),
    ("post", "autocomplete/", None),
    ("get", "", None),
    ("get", "hint/", None),
    ("get", "replay/?step=0", None),
    ("get", "analysis/", None),
]


@pytest.mark.parametrize("big_id", BIG_IDS)
def test_an_attempt_id_past_bigint_is_a_404_on_every_address(
    attempt_client: tuple[Any, Attempt], big_id: str
) -> None:
    """As PostgreSQL answers it: no such attempt. (SQLite's driver raised OverflowError on
    the hand-written statement that locks an attempt: a 500.)"""
    client, _ = attempt_client
    client.raise_request_exception = False
    for method, tail, body in ATTEMPT_ADDRESSES:
        path = f"/api/v1/attempts/{big_id}/{tail}"
        response = getattr(client, method)(path, body, format="json")
        assert error_of(response, 404)["code"] == "not_found", (method, path)


@pytest.mark.parametrize("path", ["/api/v1/nothing%0A/", "/api/v1/a%0Ab/c%0D/", "/api/v1/%0A"])
def test_a_newline_in_an_api_path_is_the_json_404_even_with_debug_on(
    path: str, settings: Any
) -> None:
    settings.DEBUG = True  # Django's own 404 would be its HTML debug page
    assert error_of(anonymous().get(path), 404)["code"] == "not_found"
