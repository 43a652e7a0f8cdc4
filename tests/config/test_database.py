import pytest
from django.db import connection


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_is_really_postgresql_through_psycopg3() -> None:
    import psycopg

    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL")
    assert isinstance(connection.connection, psycopg.Connection)


@pytest.mark.django_db
def test_migrations_are_complete() -> None:
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
