"""Django's PostgreSQL backend, with a pool that recovers at once when PostgreSQL closed
its connections (a restart, ``pg_terminate_backend``).

Django's ``CONN_HEALTH_CHECKS`` gives the pool ``ConnectionPool.check_connection``: each
connection is checked as it leaves the pool. But psycopg_pool backs off after every failed
check (1 s, 2 s, 4 s, …), so a pool holding five or more dead connections (a busy process
after a restart) makes the next request wait past the pool's timeout: a 500 after 20 s
(reproduced by tests/games/test_play_under_faults.py after a test that filled the pool).
Here the first failed check also checks every idle connection of the pool at once
(``ConnectionPool.check``: the dead ones are replaced), so the request waits for one
back-off (about a second) and then gets a fresh connection.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        # (django-stubs do not know the pool Django 5.1 added)
        pool = super().pool  # type: ignore[misc]
        if pool is not None and pool._check is pool.check_connection:
            pool._check = _check_or_sweep(pool)
        return pool


def _check_or_sweep(pool: Any) -> Any:
    def check(connection: Any) -> None:
        try:
            pool.check_connection(connection)
        except Exception:
            pool.check()  # the other idle connections are likely dead too: replace them
            raise

    return check
