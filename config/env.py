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
    "DATABASE_PREPARE_THRESHOLD": (
        "5",
        "PostgreSQL: a pooled connection prepares a statement on the server once it has run "
        "it this many times (0: never, e.g. behind a PgBouncer without prepared statements).",
    ),
    "REDIS_URL": (
        "(unset)",
        "e.g. redis://host:6379/0. Set: Redis channel layer, Celery broker and results. "
        "Unset: in-memory channel layer and Celery tasks run eagerly in-process.",
    ),
    "LOG_LEVEL": ("INFO", "Root log level (DEBUG, INFO, WARNING, ERROR)."),
    "FORWARDED_ALLOW_IPS": (
        "(empty: none)",
        "Comma-separated addresses of the reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto the server believes (read by uvicorn). Empty: the client address is "
        "the connection's, so no client can pick the address the rate limits count.",
    ),
    "API_TOKEN_DAYS": (
        "30",
        "An API token stops working this many days after it was made (0: never).",
    ),
    "THROTTLE_ADMIN_LOGIN": (
        "10/min",
        "Admin log-in attempts allowed per client address and, separately, per username.",
    ),
    "WEB_THREADS": (
        "8",
        "Threads per server process that run HTTP requests (WebSockets run on its event loop).",
    ),
    "DAILY_VARIANTS": (
        "astrocyte",
        "Comma-separated variants with a daily challenge (astrocyte, spider1, spider2, spider4).",
    ),
    "PRACTICE_VARIANTS": (
        "astrocyte,spider1,spider2,spider4",
        "Comma-separated variants that keep a pool of verified practice deals.",
    ),
    "DAILY_DAYS_AHEAD": ("7", "Days, today included, kept filled with a verified daily deal."),
    "PRACTICE_POOL_SIZE": ("50", "Verified practice deals kept per practice variant."),
    "SOLVER_SECONDS": ("60", "The solver's time limit per deal; past it the deal is 'unknown'."),
    "SOLVER_MAX_MEMORY_MB": ("1024", "The solver's memory bound per deal, in MiB."),
    "DEAL_VERIFY_SOFT_LIMIT": (
        "SOLVER_SECONDS + 30",
        "Celery soft time limit of a verification: the deal is stored as 'unknown'.",
    ),
    "DEAL_VERIFY_HARD_LIMIT": (
        "DEAL_VERIFY_SOFT_LIMIT + 30",
        "Celery hard time limit of a verification: the worker process is killed.",
    ),
    "DEAL_VERIFY_LEASE_MARGIN": (
        "30",
        "Seconds past the hard limit after which a deal left 'verifying' is taken over.",
    ),
    "DAILIES_PREPARE_EVERY": ("600", "Seconds between two runs of the beat task dailies_prepare."),
    "CELERY_TASK_DEFAULT_QUEUE": ("celery", "The queue tasks are sent to and workers consume."),
    "CELERY_VISIBILITY_TIMEOUT": (
        "DEAL_VERIFY_HARD_LIMIT + 60",
        "Seconds before Redis hands an unacknowledged task (its worker died) to another worker.",
    ),
    "CELERY_RESTORE_INTERVAL": (
        "10",
        "Seconds between a worker's sweeps for tasks abandoned by dead workers.",
    ),
    "CELERY_RESTORE_THROTTLE": ("10", "Only every Nth sweep really scans Redis."),
    "THROTTLE_SIGNUP": (
        "20/hour",
        "Sign-ups allowed per client address (DRF rate: N/sec|min|hour|day).",
    ),
    "THROTTLE_LOGIN": ("30/min", "Log-in and token requests allowed per client address."),
    "THROTTLE_ACTIONS": ("600/min", "Action posts, starts and resigns allowed per player."),
    "THROTTLE_HINTS": ("20/min", "Hint requests allowed per player."),
    "ACTIONS_MAX_BATCH": ("200", "Most actions accepted in one post."),
    "HINT_SECONDS": ("5", "The solver's time limit for one hint in a practice attempt."),
    "HINT_SOLVES_PER_PROCESS": (
        "1",
        "Embedded run (no workers): hint searches one server process runs at once; "
        "another hint then answers 503.",
    ),
    "HINT_WAITS_PER_PROCESS": (
        "2",
        "With workers: hints one server process lets wait for a worker at once (each holds "
        "one of WEB_THREADS); another then answers 503.",
    ),
    "HINT_QUEUE": (
        "(empty: the default queue)",
        "With workers: the Celery queue of hint searches (e.g. hints, with a worker of its own).",
    ),
    "HINT_QUEUE_SECONDS": (
        "5",
        "With workers: how long a hint waits for a free worker beyond HINT_SECONDS "
        "before answering 503.",
    ),
    "PLAUSIBLE_MIN_SECONDS_PER_ACTION": (
        "0.12",
        "An attempt whose median seconds per action is below this is flagged for the admins.",
    ),
    "PLAUSIBLE_MIN_ACTIONS": ("30", "Actions needed before the per-action pace is judged."),
    "PLAUSIBLE_MIN_WIN_SECONDS": ("60", "A win faster than this many seconds is flagged."),
    "PLAUSIBLE_SOLUTION_RUN_SHARE": (
        "0.8",
        "A ranked win whose log holds this share of the deal's stored solution as one "
        "contiguous run is flagged (0 to 1).",
    ),
}

env = environ.Env()
