"""Accounts hardened: blank passwords, token expiry, listing and revoking tokens, and a
rate limit on the admin's log-in page (per address and per username)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.accounts.support import PASSWORD, csrf_client
from tests.factories import make_player

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_throttles")]


def test_a_password_of_only_spaces_is_refused() -> None:
    client, csrf = csrf_client()
    response = client.post(
        "/api/v1/auth/signup/",
        {"username": "spacey", "password": " " * 10},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "signup_refused"
    assert any("blank" in message for message in error["details"]["password"])
    assert not get_user_model().objects.filter(username="spacey").exists()


def token_client(key: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {key}")


def ask_token(username: str) -> dict[str, Any]:
    response = Client().post(
        "/api/v1/auth/token/",
        {"username": username, "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_a_token_expires_after_api_token_days_and_a_new_one_is_issued(settings: Any) -> None:
    settings.API_TOKEN_DAYS = 30
    make_player("tokened", password=PASSWORD)
    first = ask_token("tokened")
    assert first["expires_at"] is not None
    assert token_client(first["token"]).get("/api/v1/auth/me/").json()["authenticated"]
    Token.objects.filter(key=first["token"]).update(
        created=timezone.now() - dt.timedelta(days=30, seconds=1)
    )
    refused = token_client(first["token"]).get("/api/v1/auth/me/")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "token_expired"
    second = ask_token("tokened")
    assert second["token"] != first["token"]
    assert token_client(second["token"]).get("/api/v1/auth/me/").json()["authenticated"]


def test_tokens_never_expire_with_zero_days(settings: Any) -> None:
    settings.API_TOKEN_DAYS = 0
    make_player("forever", password=PASSWORD)
    key = ask_token("forever")["token"]
    Token.objects.filter(key=key).update(created=timezone.now() - dt.timedelta(days=3650))
    assert token_client(key).get("/api/v1/auth/me/").json()["authenticated"]


def test_a_player_lists_and_revokes_their_tokens() -> None:
    make_player("lister", password=PASSWORD)
    make_player("other", password=PASSWORD)
    key = ask_token("lister")["token"]
    other = ask_token("other")["token"]
    client = token_client(key)
    listed = client.get("/api/v1/auth/tokens/")
    assert listed.status_code == 200
    rows = listed.json()["tokens"]
    assert [row["prefix"] for row in rows] == [key[:6]] and not rows[0]["expired"]
    assert key not in listed.content.decode(), "the whole key is never shown again"
    assert client.delete("/api/v1/auth/tokens/").status_code == 204
    assert token_client(key).get("/api/v1/auth/tokens/").status_code == 401
    assert token_client(other).get("/api/v1/auth/tokens/").status_code == 200, "theirs only"
    assert Client().get("/api/v1/auth/tokens/").status_code in (401, 403)


@pytest.fixture
def admin_user() -> Any:
    return get_user_model().objects.create_superuser("root", password=PASSWORD)


def admin_login(username: str, password: str, address: str = "10.1.1.1") -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
    )


def with_admin_rate(settings: Any, rate: str) -> None:
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {
        **framework["DEFAULT_THROTTLE_RATES"],
        "admin_login": rate,
    }
    settings.REST_FRAMEWORK = framework


def test_admin_login_is_limited_per_address(admin_user: Any, settings: Any) -> None:
    with_admin_rate(settings, "3/min")
    for n in range(3):
        assert admin_login(f"guess{n}", "wrong").status_code == 200  # the form, with its error
    refused = admin_login("root", PASSWORD)  # even the right password, from this address
    assert refused.status_code == 429
    assert b"Too many log-in attempts for this address" in refused.content
    assert int(refused["Retry-After"]) > 0
    assert admin_login("root", PASSWORD, address="10.9.9.9").status_code == 302  # elsewhere


def test_admin_login_is_limited_per_username_across_addresses(
    admin_user: Any, settings: Any
) -> None:
    with_admin_rate(settings, "3/min")
    for n in range(3):
        assert admin_login("root", "wrong", address=f"10.2.0.{n}").status_code == 200
    refused = admin_login("root", PASSWORD, address="10.2.0.99")
    assert refused.status_code == 429
    assert b"for this username" in refused.content
