"""Settings come from the environment; each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from config.env import BASE_DIR, DEV_SECRET_KEY, ENVIRONMENT_VARIABLES

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "DEBUG": s.DEBUG,
    "ALLOWED_HOSTS": s.ALLOWED_HOSTS,
    "CSRF_TRUSTED_ORIGINS": s.CSRF_TRUSTED_ORIGINS,
    "DATABASE": {k: s.DATABASES["default"][k] for k in ("ENGINE", "NAME", "HOST", "PORT", "USER")},
    "DATABASE_OPTIONS": s.DATABASES["default"].get("OPTIONS", {}),
    "CHANNEL_LAYERS": s.CHANNEL_LAYERS,
    "CELERY_BROKER_URL": s.CELERY_BROKER_URL,
    "CELERY_RESULT_BACKEND": s.CELERY_RESULT_BACKEND,
    "CELERY_TASK_ALWAYS_EAGER": s.CELERY_TASK_ALWAYS_EAGER,
    "LOG_LEVEL": s.LOG_LEVEL,
    "STATICFILES_BACKEND": s.STORAGES["staticfiles"]["BACKEND"],
}, default=str))
"""


def run_settings(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT_VARIABLES}
    clean["DJANGO_SETTINGS_MODULE"] = "config.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def settings_for(env: dict[str, str]) -> dict[str, Any]:
    result = run_settings(env)
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def test_defaults_are_the_embedded_set_up() -> None:
    loaded = settings_for({})
    assert loaded["DEBUG"] is True
    assert loaded["DATABASE"]["ENGINE"] == "django.db.backends.sqlite3"
    assert loaded["DATABASE"]["NAME"] == str(BASE_DIR / "db.sqlite3")
    assert loaded["CHANNEL_LAYERS"]["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is True
    assert loaded["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert loaded["LOG_LEVEL"] == "INFO"


def test_database_and_redis_urls_are_parsed() -> None:
    loaded = settings_for(
        {
            "DATABASE_URL": "postgres://player:pw@db.internal:6543/astrocyte",
            "REDIS_URL": "redis://cache.internal:6380/2",
        }
    )
    assert loaded["DATABASE"] == {
        "ENGINE": "core.postgresql",  # Django's, with a pool that recovers from a restart
        "NAME": "astrocyte",
        "HOST": "db.internal",
        "PORT": 6543,
        "USER": "player",
    }
    layer = loaded["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "core.live.PubSubChannelLayer"
    assert [host["address"] for host in layer["CONFIG"]["hosts"]] == [
        "redis://cache.internal:6380/2"
    ]
    assert loaded["CELERY_BROKER_URL"] == "redis://cache.internal:6380/2"
    assert loaded["CELERY_RESULT_BACKEND"] == "redis://cache.internal:6380/2"
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is False


@pytest.mark.parametrize(("threshold", "prepared"), [(None, 5), ("2", 2), ("0", None)])
def test_postgresql_prepares_statements_unless_told_not_to(
    threshold: str | None, prepared: int | None
) -> None:
    env = {"DATABASE_URL": "postgres://player:pw@db.internal:6543/astrocyte"}
    if threshold is not None:
        env["DATABASE_PREPARE_THRESHOLD"] = threshold
    options = settings_for(env)["DATABASE_OPTIONS"]
    assert options.get("prepare_threshold") == prepared
    assert options.get("server_side_binding") is (True if prepared else None)


@pytest.mark.parametrize(("size", "pool"), [(None, (2, 16)), ("12", (2, 12)), ("1", (1, 1))])
def test_each_process_keeps_at_most_the_configured_postgresql_connections(
    size: str | None, pool: tuple[int, int]
) -> None:
    env = {"DATABASE_URL": "postgres://player:pw@db.internal:6543/astrocyte"}
    if size is not None:
        env["DATABASE_POOL_MAX_SIZE"] = size
    options = settings_for(env)["DATABASE_OPTIONS"]["pool"]
    assert (options["min_size"], options["max_size"]) == pool


def test_a_pool_of_no_connection_is_refused() -> None:
    result = run_settings(
        {
            "DATABASE_URL": "postgres://player:pw@db.internal:6543/astrocyte",
            "DATABASE_POOL_MAX_SIZE": "0",
        }
    )
    assert result.returncode != 0
    assert "DATABASE_POOL_MAX_SIZE must be at least 1, not 0" in result.stderr


def test_lists_and_log_level_are_parsed() -> None:
    loaded = settings_for(
        {
            "ALLOWED_HOSTS": "play.example.org,.example.net",
            "CSRF_TRUSTED_ORIGINS": "https://play.example.org",
            "LOG_LEVEL": "warning",
        }
    )
    assert loaded["ALLOWED_HOSTS"] == ["play.example.org", ".example.net"]
    assert loaded["CSRF_TRUSTED_ORIGINS"] == ["https://play.example.org"]
    assert loaded["LOG_LEVEL"] == "WARNING"


@pytest.mark.parametrize(
    "secret",
    [None, "", DEV_SECRET_KEY],
    ids=["missing", "empty", "development-key"],
)
def test_production_refuses_the_development_secret(secret: str | None) -> None:
    env = {"DEBUG": "false"}
    if secret is not None:
        env["SECRET_KEY"] = secret
    result = run_settings(env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "Refusing to start with DEBUG=false" in result.stderr


def test_production_starts_with_a_real_secret() -> None:
    loaded = settings_for({"DEBUG": "false", "SECRET_KEY": "x" * 50})
    assert loaded["DEBUG"] is False
    assert loaded["STATICFILES_BACKEND"].startswith("whitenoise.")


def test_settings_read_exactly_the_registered_variables() -> None:
    """config/env.py is the one list docs/configuration.md and docker-compose.yml are checked
    against."""
    source = (ROOT / "config" / "settings.py").read_text()
    read = set(re.findall(r"(?:env(?:\.\w+)?|setting)\(\s*\"([A-Z_]+)\"", source))
    assert read == set(ENVIRONMENT_VARIABLES)


def test_the_docs_document_every_variable_with_its_default() -> None:
    """A default is written once, in config/env.py; docs/configuration.md's table says the
    same."""
    table = (ROOT / "docs" / "configuration.md").read_text()
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| ([^|]*) \|", table, re.MULTILINE))
    for name, variable in ENVIRONMENT_VARIABLES.items():
        assert name in rows, f"docs/configuration.md's table lacks {name}"
        assert rows[name].replace("`", "").strip() == variable.shown_default(), name


def test_a_setting_is_read_as_its_default_s_type(monkeypatch: pytest.MonkeyPatch) -> None:
    from config.env import setting

    monkeypatch.setenv("SOLVER_SECONDS", "12.5")
    monkeypatch.setenv("DAILY_VARIANTS", "spider1,spider4")
    monkeypatch.setenv("DEBUG", "false")
    assert setting("SOLVER_SECONDS") == 12.5
    assert setting("DAILY_VARIANTS") == ["spider1", "spider4"]
    assert setting("DEBUG") is False
    monkeypatch.delenv("WEB_THREADS", raising=False)
    assert setting("WEB_THREADS") == ENVIRONMENT_VARIABLES["WEB_THREADS"].default == 8
    with pytest.raises(TypeError, match="derived"):
        setting("DEAL_VERIFY_SOFT_LIMIT")
