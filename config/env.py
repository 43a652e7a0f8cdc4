"""The environment variables the settings read: one registry, so the README, the
compose file and the tests can all be checked against the same list."""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "django-insecure-astrocyte-daily-development-only"

# name -> (default as a person would write it, meaning)
ENVIRONMENT_VARIABLES: dict[str, tuple[str, str]] = {
    "DEBUG": (
        "true",
        "Development mode. Set false in production: then SECRET_KEY must be set.",
    ),
    "SECRET_KEY": (
        "a development key",
        "Django's signing key. The server refuses to start with DEBUG=false "
        "and the development key (or none).",
    ),
    "ALLOWED_HOSTS": (
        "localhost,127.0.0.1,[::1]",
        "Comma-separated host names the server answers to (HTTP and WebSocket origins).",
    ),
    "CSRF_TRUSTED_ORIGINS": (
        "(empty)",
        "Comma-separated origins such as https://play.example.org, needed behind HTTPS proxies.",
    ),
    "DATABASE_URL": (
        "sqlite:///<repo>/db.sqlite3",
        "Database, e.g. postgres://user:pass@host:5432/astrocyte. PostgreSQL in production.",
    ),
    "REDIS_URL": (
        "(unset)",
        "e.g. redis://host:6379/0. Set: Redis channel layer, Celery broker and results. "
        "Unset: in-memory channel layer and Celery tasks run eagerly in-process.",
    ),
    "LOG_LEVEL": ("INFO", "Root log level (DEBUG, INFO, WARNING, ERROR)."),
}

env = environ.Env()
