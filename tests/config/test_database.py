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


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_statement_run_again_and_again_is_prepared_on_the_server() -> None:
    # DATABASE_PREPARE_THRESHOLD (default 5): planned once per connection, not per run.
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.filter(username="nobody-prepared")
    for _ in range(6):
        assert not users.exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("auth_user" in statement for statement in prepared), prepared


SQUASHED = {
    "games": "0001_squashed_0010_attempt_hints_used",
    "leaderboards": "0001_squashed_0007_rerate_by_progress",
    "reviews": "0001_squashed_0002_game_fits",
}


@pytest.mark.django_db
def test_a_database_migrated_before_the_squash_needs_no_migration() -> None:
    """An operator's database whose history holds the migrations the squashed ones replace
    (all applied, as at the last release before the squash) is up to date: ``migrate`` has
    nothing to run (docs/operations.md, "Upgrade")."""
    from django.db.migrations.executor import MigrationExecutor
    from django.db.migrations.recorder import MigrationRecorder

    recorder = MigrationRecorder(connection)
    loader = MigrationExecutor(connection).loader
    for app, name in SQUASHED.items():
        replaced = loader.disk_migrations[app, name].replaces
        assert len(replaced) >= 2, f"{app}.{name} replaces nothing"
        recorder.record_unapplied(app, name)
        for replaced_app, replaced_name in replaced:
            recorder.record_applied(replaced_app, replaced_name)
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    for app, name in SQUASHED.items():
        assert (app, name) in executor.loader.applied_migrations
