"""What the accounts tests share: a password every validator takes, and a browser-like client
with its CSRF token."""

from __future__ import annotations

from django.test import Client

PASSWORD = "x-Long-pass-9"


def csrf_client() -> tuple[Client, str]:
    """A browser-like client that must send the CSRF token, and the token from auth/me/."""
    client = Client(enforce_csrf_checks=True)
    me = client.get("/api/v1/auth/me/")
    assert me.status_code == 200 and me.json() == {"authenticated": False, "user": None}
    return client, client.cookies["csrftoken"].value
