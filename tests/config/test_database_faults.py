"""PostgreSQL closing the pool's connections (a restart, ``pg_terminate_backend``) costs no 500.

Before, a PostgreSQL restart gave 15 requests a 500: the pool handed out connections the
server had closed ("terminating connection due to administrator command", first seen in
the token lookup). The pool now checks each connection as it leaves (config/settings.py).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from rest_framework.authtoken.models import Token

from tests.database_support import terminate_other_connections
from tests.factories import make_player

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fresh_throttles"),
]


def test_terminated_pooled_connections_are_replaced_without_a_500() -> None:
    player = make_player()
    token = Token.objects.create(user=player)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")

    def served() -> int:
        # As the server does around each request (the test client leaves it out): the
        # request's connection comes from the pool and goes back to it after.
        close_old_connections()
        try:
            response: Any = client.get("/api/v1/auth/me/")
            return int(response.status_code)
        finally:
            close_old_connections()

    assert [served() for _ in range(3)] == [200] * 3
    assert terminate_other_connections() >= 1
    statuses = [served() for _ in range(6)]
    assert statuses == [200] * 6, statuses


def test_a_full_pool_of_dead_connections_costs_a_request_no_500_and_no_long_wait() -> None:
    """After a restart a busy process holds many dead connections. psycopg_pool's check
    alone backs off after each (1, 2, 4, 8 s…): with five or more the request timed out
    with a 500 after 20 s. The pool now sweeps the others after the first failed check."""
    player = make_player()
    token = Token.objects.create(user=player)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")
    pool = connection.pool  # type: ignore[attr-defined]
    held = [pool.getconn() for _ in range(10)]  # ten connections, as ten threads would
    for pooled in held:
        pool.putconn(pooled)
    assert terminate_other_connections() >= 10
    close_old_connections()
    began = time.monotonic()
    try:
        response: Any = client.get("/api/v1/auth/me/")
    finally:
        close_old_connections()
    assert response.status_code == 200
    assert time.monotonic() - began < 5
