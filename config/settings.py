"""Django settings, all from the environment (see config/env.py and the README).

Defaults are the embedded single-machine set-up: SQLite, the in-memory channel
layer and Celery tasks run in-process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from pythonjsonlogger.core import RESERVED_ATTRS

from config.env import BASE_DIR, DEV_SECRET_KEY, ENVIRONMENT_VARIABLES, env, setting
from core.live import prefix_for

DEBUG: bool = setting("DEBUG")

SECRET_KEY: str = setting("SECRET_KEY")
if not DEBUG and SECRET_KEY in ("", DEV_SECRET_KEY):
    raise ImproperlyConfigured(
        "Refusing to start with DEBUG=false and the development SECRET_KEY: "
        "set SECRET_KEY to a long random value."
    )

ALLOWED_HOSTS: list[str] = setting("ALLOWED_HOSTS")
# The reverse proxies whose forwarded headers count. uvicorn reads the variable itself (its
# own default trusts 127.0.0.1, so a client on the same host could pick its address past the
# rate limits); scripts/dev.py and docker-compose.yml pass it on, empty unless configured.
FORWARDED_ALLOW_IPS: list[str] = setting("FORWARDED_ALLOW_IPS")
CSRF_TRUSTED_ORIGINS: list[str] = setting("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "accounts",
    "games",
    "leaderboards",
    "rooms",
    "notifications",
    "reviews",
    "frontend",
]

MIDDLEWARE = [
    # First: request latency by route for every request, the refused ones too (docs/metrics.md).
    "core.request_metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # NUL characters in the address, oversize API bodies: refused first (413/404/400 JSON).
    "core.request_guard.RequestGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The device cookie of browsers, and who started a daily from where (docs/fair-play.md).
    "reviews.middleware.DeviceCookieMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "config.asgi.application"
# HTTP requests run on a pool of this many threads per server process (config/asgi.py).
WEB_THREADS: int = setting("WEB_THREADS")

# --- database ---------------------------------------------------------------
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=ENVIRONMENT_VARIABLES["DATABASE_URL"].default)
}
# Connections stay per request (CONN_MAX_AGE = 0): the WebSocket consumers' reads run on
# asgiref's threads, where persistent connections would linger one per thread.
DATABASES["default"]["CONN_MAX_AGE"] = 0
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, with a pool that sweeps its dead connections at once after a
    # PostgreSQL restart instead of backing off past its timeout (core/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "core.postgresql"
    # ...but taken from a psycopg pool per process instead of opened and closed each time
    # (docs/api.md: a new PostgreSQL connection per post cost more CPU than the post itself,
    # and 200 concurrent requests overran max_connections=100). At most max_size per worker
    # process (DATABASE_POOL_MAX_SIZE); a request waits up to `timeout` seconds for one when
    # all are busy. docker-compose.yml sizes them against its max_connections.
    pool_max_size: int = setting("DATABASE_POOL_MAX_SIZE")
    if pool_max_size < 1:
        raise ImproperlyConfigured(
            f"DATABASE_POOL_MAX_SIZE must be at least 1, not {pool_max_size}"
        )
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, pool_max_size),
        "max_size": pool_max_size,
        "timeout": 20,
    }
    # With a pool, Django passes psycopg_pool's `check=ConnectionPool.check_connection`
    # when health checks are on (it refuses `check` among the pool options): a connection
    # is checked (an empty query) as it leaves the pool, and one that PostgreSQL closed
    # meanwhile (a restart, pg_terminate_backend) is replaced, not handed to a request
    # that would fail with a 500; core.postgresql sweeps the pool's other dead ones then.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Statements a pooled connection has run a few times are prepared on the server: their
    # planning (0.2-0.4 ms of PostgreSQL's CPU each for the play API's joins) is done once
    # (docs/api.md). That needs server-side parameters; Django leaves both off by default.
    prepare_threshold = setting("DATABASE_PREPARE_THRESHOLD")
    if prepare_threshold > 0:
        DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = prepare_threshold
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded run writes from several threads of its one process: requests, and the
    # embedded beat with its verifier (games/embedded_beat.py). Transactions take SQLite's
    # write lock when they begin (a deferred one that upgrades from read to write fails at
    # once with "database is locked" when another writer is in), writers wait up to 20 s for
    # each other, and in WAL mode readers never wait for a writer (bench/midnight_bench.py).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer and Celery ----------------------------------------
REDIS_URL: str | None = setting("REDIS_URL") or None

CHANNEL_LAYERS: dict[str, dict[str, Any]]
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis' pub/sub layer (core/live/channel_layer.py): one PUBLISH per
            # group message, fanned out inside each process, so Redis' work per board does not
            # grow with the number of watchers.
            "BACKEND": "core.live.PubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
                # Pub/sub channels are server-wide: the URL's database number goes in here.
                "prefix": prefix_for(REDIS_URL),
                # Per channel, in the process: the process's one channel per group
                # (core/live/group_fanout.py), whose reader hands each message on at once;
                # past `capacity` its oldest messages are dropped. Each socket's own mailbox is
                # bounded the same way (core.live.consumers.MAILBOX_SIZE).
                "capacity": 100,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


# Throttle counters live in the cache: shared through Redis when there is one.
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's RedisCache with one pool and one client per process (core/redis_cache.py).
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "astrocyte",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
# Without Redis there is no broker and no worker: tasks run in the caller's process.
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # tasks are idempotent; a crashed worker's task is redelivered
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {}

# --- auth, i18n -------------------------------------------------------------
# API tokens stop working this many days after they were made (0: never).
API_TOKEN_DAYS: int = setting("API_TOKEN_DAYS")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "accounts.passwords.NotBlankValidator"},
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- static files -----------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- API --------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api_errors.api_exception_handler",
    # JSON nested too deep is a 400, not a RecursionError (core/json_parser.py).
    "DEFAULT_PARSER_CLASSES": [
        "core.json_parser.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": (
        ["rest_framework.renderers.JSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"]
        if DEBUG
        else ["rest_framework.renderers.JSONRenderer"]
    ),
    # Token first: its WWW-Authenticate header makes "not signed in" a 401, not a 403.
    # Session authentication enforces CSRF on unsafe methods (the browser's path).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # Views name their scope (ScopedRateThrottle): per user when signed in, else per address.
    # Client addresses come from REMOTE_ADDR, never from a header the client can forge
    # (behind a proxy, uvicorn's --proxy-headers sets REMOTE_ADDR from trusted proxies).
    "NUM_PROXIES": 0,
    "DEFAULT_THROTTLE_RATES": {
        "signup": setting("THROTTLE_SIGNUP"),
        "login": setting("THROTTLE_LOGIN"),
        "actions": setting("THROTTLE_ACTIONS"),
        "hints": setting("THROTTLE_HINTS"),
        "practice_hints": setting("THROTTLE_PRACTICE_HINTS"),
        # /admin/login/ (accounts/admin_login.py): per address and, apart, per username.
        "admin_login": setting("THROTTLE_ADMIN_LOGIN"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Astrocyte Daily API",
    "DESCRIPTION": "Daily challenges of Astrocyte Solitaire and Spider; the server is the "
    "only authority on the cards and the clock.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",  # the default
        "core.api_schema.document_bad_credentials",
    ],
}

# --- security in production ---------------------------------------------------
if not DEBUG:
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

# --- logging ----------------------------------------------------------------
LOG_LEVEL: str = setting("LOG_LEVEL").upper()
LOG_FORMAT: str = setting("LOG_FORMAT").lower()
LOG_FORMATS: dict[str, dict[str, Any]] = {
    "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    # One JSON object per line: time, level, logger, message (a traceback inside it).
    "json": {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "format": "%(levelname)s %(name)s %(message)s",
        "timestamp": "time",  # ISO 8601, UTC
        "rename_fields": {"levelname": "level", "name": "logger"},
        # A record's own attributes are not fields, nor uvicorn's ANSI-coloured copy of its
        # message; any other `extra` is.
        "reserved_attrs": [*RESERVED_ATTRS, "color_message"],
    },
}
if LOG_FORMAT not in LOG_FORMATS:
    raise ImproperlyConfigured(f"LOG_FORMAT must be plain or json, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": LOG_FORMATS[LOG_FORMAT]},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"level": LOG_LEVEL, "propagate": True},
        # uvicorn's lines (start-up, errors, the access log when on) in the same format,
        # once each: through the root's handler, not uvicorn's own as well.
        "uvicorn": {"handlers": [], "propagate": True},
        "uvicorn.error": {"handlers": [], "propagate": True},
        "uvicorn.access": {"handlers": [], "propagate": True},
    },
}
# Celery workers and beat log through the same handler and format, not celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- metrics (docs/metrics.md) -------------------------------------------------
METRICS_ENABLED: bool = setting("METRICS_ENABLED")
METRICS_TOKEN: str = setting("METRICS_TOKEN")
# Read by prometheus-client itself (its multiprocess mode, for `uvicorn --workers N`);
# checked here so that a typo fails at start, not at the first scrape.
PROMETHEUS_MULTIPROC_DIR: str = setting("PROMETHEUS_MULTIPROC_DIR")
if PROMETHEUS_MULTIPROC_DIR and not Path(PROMETHEUS_MULTIPROC_DIR).is_dir():
    raise ImproperlyConfigured(
        f"PROMETHEUS_MULTIPROC_DIR={PROMETHEUS_MULTIPROC_DIR!r} is not a directory"
    )

# --- deals, the solver and the daily schedule ---------------------------------
DAILY_VARIANTS: list[str] = setting("DAILY_VARIANTS")
PRACTICE_VARIANTS: list[str] = setting("PRACTICE_VARIANTS")
DAILY_DAYS_AHEAD: int = setting("DAILY_DAYS_AHEAD")
PRACTICE_POOL_SIZE: int = setting("PRACTICE_POOL_SIZE")
SOLVER_SECONDS: float = setting("SOLVER_SECONDS")
SOLVER_MAX_MEMORY_MB: int = setting("SOLVER_MAX_MEMORY_MB")
SOLVER_NODES: int = setting("SOLVER_NODES")
SOLVER_IMPROVE_NODES: int = setting("SOLVER_IMPROVE_NODES")
SOLVER_OPENING_IMPROVE_NODES: int = setting("SOLVER_OPENING_IMPROVE_NODES")
SOLVER_NICENESS: int = setting("SOLVER_NICENESS")
# The solver stops itself at SOLVER_SECONDS; the soft limit stores 'unknown' if it does not,
# the hard limit kills the worker process, and the broker redelivers an unacknowledged task
# only after the visibility timeout, so it must exceed the hard limit.
DEAL_VERIFY_SOFT_LIMIT: int = setting("DEAL_VERIFY_SOFT_LIMIT", default=int(SOLVER_SECONDS) + 30)
DEAL_VERIFY_HARD_LIMIT: int = setting("DEAL_VERIFY_HARD_LIMIT", default=DEAL_VERIFY_SOFT_LIMIT + 30)
DEAL_VERIFY_LEASE_MARGIN: int = setting("DEAL_VERIFY_LEASE_MARGIN")
CELERY_TASK_DEFAULT_QUEUE: str = setting("CELERY_TASK_DEFAULT_QUEUE")
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": setting("CELERY_VISIBILITY_TIMEOUT", default=DEAL_VERIFY_HARD_LIMIT + 60),
    # How often a worker looks for messages abandoned by a dead worker (seconds x every Nth).
    "unacked_restore_interval": setting("CELERY_RESTORE_INTERVAL"),
    "unacked_restore_throttle": setting("CELERY_RESTORE_THROTTLE"),
}
DAILIES_PREPARE_EVERY: int = setting("DAILIES_PREPARE_EVERY")
CELERY_BEAT_SCHEDULE["dailies-prepare"] = {
    "task": "games.dailies_prepare",
    "schedule": DAILIES_PREPARE_EVERY,
}

# --- attempts -----------------------------------------------------------------
ACTIONS_MAX_BATCH: int = setting("ACTIONS_MAX_BATCH")
HINTS_PER_GAME: int = setting("HINTS_PER_GAME")
HINT_SECONDS: float = setting("HINT_SECONDS")
HINT_NODES: int = setting("HINT_NODES")
HINT_SOLVES_PER_PROCESS: int = setting("HINT_SOLVES_PER_PROCESS")
# With workers, a hint waiting for one holds an HTTP thread: this many at once per process.
HINT_WAITS_PER_PROCESS: int = setting("HINT_WAITS_PER_PROCESS")
# With workers, hint searches run as Celery tasks on this queue (empty: the default queue).
HINT_QUEUE: str = setting("HINT_QUEUE")
# How long a hint may wait for a free worker, on top of HINT_SECONDS, before 503 hints_busy.
HINT_QUEUE_SECONDS: float = setting("HINT_QUEUE_SECONDS")
# Game analysis (games/services/analysis.py): the whole job's and one position's solver budget.
ANALYSIS_SECONDS: float = setting("ANALYSIS_SECONDS")
ANALYSIS_POSITION_SECONDS: float = setting("ANALYSIS_POSITION_SECONDS")
ANALYSIS_POSITION_NODES: int = setting("ANALYSIS_POSITION_NODES")
ANALYSIS_NODES: int = setting("ANALYSIS_NODES")
# Faster than a human: flagged for the admins (never refused, never hidden from the player).
PLAUSIBLE_MIN_SECONDS_PER_ACTION: float = setting("PLAUSIBLE_MIN_SECONDS_PER_ACTION")
PLAUSIBLE_MIN_ACTIONS: int = setting("PLAUSIBLE_MIN_ACTIONS")
PLAUSIBLE_MIN_WIN_SECONDS: float = setting("PLAUSIBLE_MIN_WIN_SECONDS")
PLAUSIBLE_SOLUTION_RUN_SHARE: float = setting("PLAUSIBLE_SOLUTION_RUN_SHARE")
if not 0.0 < PLAUSIBLE_SOLUTION_RUN_SHARE <= 1.0:
    raise ImproperlyConfigured(
        f"PLAUSIBLE_SOLUTION_RUN_SHARE must be above 0 and at most 1, "
        f"not {PLAUSIBLE_SOLUTION_RUN_SHARE}"
    )
# Ranked attempts still open when their day ends are closed at 00:00 UTC (and whenever
# one of them is touched afterwards).
CELERY_BEAT_SCHEDULE["attempts-close-day"] = {
    "task": "games.attempts_close_day",
    "schedule": crontab(minute=0, hour=0),
}
# Ratings: rate the closed dailies not rated yet, after the day's close (a day whose ranked
# attempts are still open waits for the next hour's run). The embedded beat runs it too,
# after the close.
CELERY_BEAT_SCHEDULE["ratings-rate-closed-days"] = {
    "task": "leaderboards.ratings_rate_closed_days",
    "schedule": crontab(minute=5),
}
# Race rooms: close the rooms left empty, end the races past their time limit.
ROOMS_TIDY_EVERY: int = setting("ROOMS_TIDY_EVERY")
CELERY_BEAT_SCHEDULE["rooms-tidy"] = {"task": "rooms.rooms_tidy", "schedule": ROOMS_TIDY_EVERY}

# --- reminders: Web Push (notifications/, docs/operations.md) ---------------------------
# The VAPID private key (base64url, raw P-256): from the environment, else from the local
# file `scripts/dev.py run` writes when absent (git-ignored). Empty: reminders are off.
VAPID_KEY_FILE = BASE_DIR / "vapid-private-key.txt"
VAPID_PRIVATE_KEY: str = setting("VAPID_PRIVATE_KEY").strip() or (
    VAPID_KEY_FILE.read_text().strip() if VAPID_KEY_FILE.is_file() else ""
)
VAPID_SUBJECT: str = setting("VAPID_SUBJECT")
REMINDERS_EVERY: int = setting("REMINDERS_EVERY")
CELERY_BEAT_SCHEDULE["notifications-send-reminders"] = {
    "task": "notifications.send_reminders",
    "schedule": REMINDERS_EVERY,
}
