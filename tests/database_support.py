"""PostgreSQL faults the tests make: every other connection to the test database closed, as
a restart would close them."""

from __future__ import annotations

import psycopg
from django.db import connection


def terminate_other_connections() -> int:
    """Close every other connection to the test database, as a restart would."""
    params = connection.get_connection_params()
    params.pop("pool", None)
    params.pop("prepare_threshold", None)
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)
