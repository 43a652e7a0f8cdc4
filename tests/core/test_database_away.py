"""A request through Django while the database cannot be reached is answered 503
``unavailable`` with ``Retry-After`` (core/http_errors.py), not a 500: for real, with the
connection pointed at nothing (PostgreSQL: a port where nothing listens, the pool waiting
one second for a connection instead of 20; SQLite: a file in a folder that does not exist).
The signed-in player's session is read first, so the session middleware is where it fails,
as in the outage it was found in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from core.http_errors import RETRY_AFTER_SECONDS
from tests.dead_port import dead_port
from tests.factories import make_player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def database_away() -> Iterator[None]:
    """The default database unreachable until the test ends."""
    settings = connection.settings_dict
    kept = {key: settings[key] for key in ("NAME", "PORT", "OPTIONS")}
    connection.close()
    try:
        if connection.vendor == "postgresql":
            connection.close_pool()  # type: ignore[attr-defined]
            with dead_port() as port:
                pool = {**settings["OPTIONS"]["pool"], "timeout": 1}
                settings.update(PORT=str(port), OPTIONS={**settings["OPTIONS"], "pool": pool})
                yield
                connection.close()
                connection.close_pool()  # type: ignore[attr-defined]
        else:
            settings["NAME"] = "/nonexistent-folder-of-this-test/db.sqlite3"
            yield
    finally:
        connection.close()
        settings.update(kept)


def test_a_request_while_the_database_is_away_is_a_503_to_try_again(
    request: pytest.FixtureRequest,
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(make_player())
    assert client.get("/api/v1/auth/me/").status_code == 200
    request.getfixturevalue("database_away")

    for path in ("/api/v1/auth/me/", "/api/v1/challenges/today/"):
        answer: Any = client.get(path)
        assert answer.status_code == 503, (path, answer.content[:300])
        assert answer["Retry-After"] == str(RETRY_AFTER_SECONDS)
        error = answer.json()["error"]
        assert error["code"] == "unavailable" and error["details"] == {"retry_after": 5}
    page: Any = client.get("/admin/")  # a page that reads the session
    assert page.status_code == 503 and page["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert b"try again" in page.content


def test_only_a_database_out_of_reach_is_a_503_a_refused_statement_is_a_bug() -> None:
    """Only "cannot be reached" is a 503; SQL that the database refuses is a bug (500)."""
    from django.db import OperationalError

    from core import http_errors

    assert not http_errors.database_unavailable(OperationalError("no such table: games_deal"))
    assert http_errors.database_unavailable(OperationalError("database is locked"))
