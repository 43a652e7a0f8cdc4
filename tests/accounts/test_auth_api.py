"""Accounts: sign up, log in and out with a session (CSRF enforced), tokens, rate limits."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from tests.accounts.support import PASSWORD, csrf_client
from tests.factories import make_player
from tests.games.api_support import todays_challenge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_throttles")]


def test_signup_logs_the_session_in() -> None:
    client, token = csrf_client()
    response = client.post(
        "/api/v1/auth/signup/",
        {"username": "nova", "password": PASSWORD},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "nova"
    me = client.get("/api/v1/auth/me/").json()
    assert me["authenticated"] and me["user"]["username"] == "nova"


def test_csrf_is_enforced_for_session_clients() -> None:
    make_player("orbit", password=PASSWORD)
    client, token = csrf_client()
    body = {"username": "orbit", "password": PASSWORD}
    refused = client.post("/api/v1/auth/login/", body, content_type="application/json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    assert "CSRF" in refused.json()["error"]["message"]
    logged_in = client.post(
        "/api/v1/auth/login/", body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert logged_in.status_code == 200
    # Logging in rotates the token: the session's unsafe requests need the new one.
    challenge = todays_challenge()
    url = f"/api/v1/challenges/{challenge.pk}/start/"
    assert client.post(url).status_code == 403
    assert client.post(url, HTTP_X_CSRFTOKEN=token).status_code == 403
    fresh = client.cookies["csrftoken"].value
    assert client.post(url, HTTP_X_CSRFTOKEN=fresh).status_code == 201
    out = client.post("/api/v1/auth/logout/", HTTP_X_CSRFTOKEN=fresh)
    assert out.status_code == 204
    assert client.get("/api/v1/auth/me/").json()["authenticated"] is False


def test_wrong_credentials_are_refused() -> None:
    make_player("comet", password=PASSWORD)
    response = APIClient().post(
        "/api/v1/auth/login/", {"username": "comet", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_credentials"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "ok_name", "password": "123"}, "password"),
        ({"username": "ok_name", "password": "password"}, "password"),
        ({"username": "ok_name", "password": "ok_name_1"}, "password"),
        ({"username": "a b", "password": PASSWORD}, "username"),
        ({"username": "x", "password": PASSWORD}, "username"),
        ({"username": "Taken", "password": PASSWORD}, "username"),
        ({"password": PASSWORD}, "username"),
        ({"username": "ok_name"}, "password"),
    ],
)
def test_signup_validates_username_and_password(body: dict[str, Any], field: str) -> None:
    make_player("taken", password=PASSWORD)
    response = APIClient().post("/api/v1/auth/signup/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["details"]
    assert not get_user_model().objects.filter(username="ok_name").exists()


def test_token_auth_for_api_clients() -> None:
    make_player("probe", password=PASSWORD)
    challenge = todays_challenge()
    client = APIClient()
    wrong = client.post("/api/v1/auth/token/", {"username": "probe", "password": "x"})
    assert wrong.status_code == 400
    response = client.post(
        "/api/v1/auth/token/", {"username": "probe", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/auth/me/").json()["user"]["username"] == "probe"
    started = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert started.status_code == 201
    assert client.post("/api/v1/auth/logout/").status_code == 204  # revokes the token
    assert client.post(f"/api/v1/challenges/{challenge.pk}/start/").status_code == 401


def test_not_signed_in_is_401_in_the_error_shape() -> None:
    response = APIClient().post("/api/v1/auth/logout/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response.headers["WWW-Authenticate"] == "Token"


def test_signup_and_login_are_rate_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "signup", "2/hour")
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "login", "3/min")
    client = APIClient()
    codes = [
        client.post(
            "/api/v1/auth/signup/", {"username": f"star{i}", "password": PASSWORD}, format="json"
        ).status_code
        for i in range(3)
    ]
    assert codes == [201, 201, 429]
    body = {"username": "star0", "password": "wrong"}
    codes = [client.post("/api/v1/auth/login/", body, format="json").status_code for _ in range(4)]
    assert codes == [400, 400, 400, 429]
    response = client.post("/api/v1/auth/token/", body, format="json")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"


def test_an_api_client_signs_up_with_a_plain_json_post_and_gets_a_token() -> None:
    """No session, no CSRF cookie to fetch first: a client with no browser's cookies."""
    challenge = todays_challenge()
    client = Client(enforce_csrf_checks=True)  # as strict as a browser's session would be
    response = client.post(
        "/api/v1/auth/token/signup/",
        {"username": "bot_one", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["user"]["username"] == "bot_one" and body["token"]
    assert "sessionid" not in client.cookies  # no session was signed in
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert api.post(f"/api/v1/challenges/{challenge.pk}/start/").status_code == 201
    # The same rules as the browser's sign-up; nothing is written on a refusal.
    weak = client.post(
        "/api/v1/auth/token/signup/",
        {"username": "bot_two", "password": "12345678"},
        content_type="application/json",
    )
    assert weak.status_code == 400
    error = weak.json()["error"]
    assert error["code"] == "signup_refused" and "password" in error["details"]
    assert "too common" in error["message"] or "entirely numeric" in error["message"]
    assert not get_user_model().objects.filter(username="bot_two").exists()


def test_the_password_rules_are_published_for_the_sign_up_form() -> None:
    body = APIClient().get("/api/v1/auth/password-rules/").json()
    assert body["min_length"] >= 8
    assert any("at least" in rule for rule in body["rules"])
    assert any("numeric" in rule for rule in body["rules"])
