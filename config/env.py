"""The environment variables the settings read: one registry, so docs/configuration.md,
the compose file and the tests can all be checked against the same list."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "django-insecure-astrocyte-daily-development-only"
DERIVED: Any = object()  # a default computed from other settings (config/settings.py says how)


@dataclass(frozen=True)
class Variable:
    default: Any
    meaning: str
    shown: str | None = None
    # The default of the embedded run (REDIS_URL unset: one process on a laptop), where it
    # differs from the full stack's.
    embedded: Any = None

    def shown_default(self) -> str:
        """The default as docs/configuration.md's table writes it."""
        if self.shown is not None:
            return self.shown
        full = self._shown(self.default)
        if self.embedded is None:
            return full
        return f"{full} (embedded run: {self._shown(self.embedded)})"

    @staticmethod
    def _shown(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, list):
            return ",".join(value)
        return str(value)


# Every variable the settings read: its default (typed, as the settings use it; DERIVED
# when computed from other settings in config/settings.py), what it means, and how the
# docs/configuration.md's table shows the default where that is not the value itself. The
# settings, that table, the compose file and the tests are all checked against this list.
ENVIRONMENT_VARIABLES: dict[str, Variable] = {
    "DEBUG": Variable(
        True,
        "Development mode. Set false in production: then SECRET_KEY must be set.",
    ),
    "SECRET_KEY": Variable(
        DEV_SECRET_KEY,
        "Django's signing key. The server refuses to start with DEBUG=false and the development "
        "key (or none).",
        shown="a development key",
    ),
    "ALLOWED_HOSTS": Variable(
        ["localhost", "127.0.0.1", "[::1]"],
        "Comma-separated host names the server answers to (HTTP and WebSocket origins).",
    ),
    "CSRF_TRUSTED_ORIGINS": Variable(
        [],
        "Comma-separated origins such as https://play.example.org, needed behind HTTPS proxies.",
        shown="(empty)",
    ),
    "DATABASE_URL": Variable(
        f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        "Database, e.g. postgres://user:pass@host:5432/astrocyte. PostgreSQL in production.",
        shown="sqlite:///<repo>/db.sqlite3",
    ),
    "DATABASE_PREPARE_THRESHOLD": Variable(
        5,
        "PostgreSQL: a pooled connection prepares a statement on the server once it has run it "
        "this many times (0: never, e.g. behind a PgBouncer without prepared statements).",
    ),
    "DATABASE_POOL_MAX_SIZE": Variable(
        16,
        "PostgreSQL: connections one process keeps at most (its pool); processes times this must "
        "stay under the server's max_connections.",
    ),
    "REDIS_URL": Variable(
        "",
        "e.g. redis://host:6379/0. Set: Redis channel layer, Celery broker and results. Unset: "
        "in-memory channel layer and Celery tasks run eagerly in-process.",
        shown="(unset)",
    ),
    "LOG_LEVEL": Variable(
        "INFO",
        "Root log level (DEBUG, INFO, WARNING, ERROR).",
    ),
    "LOG_FORMAT": Variable(
        "plain",
        "plain: one line of text per event; json: one JSON object per line (time, level, "
        "logger, message, and a traceback inside the object).",
    ),
    "METRICS_ENABLED": Variable(
        False,
        "Serve Prometheus metrics at /metrics/ (docs/metrics.md). Off: that path is a 404.",
    ),
    "METRICS_TOKEN": Variable(
        "",
        "When set, /metrics/ answers only a request with 'Authorization: Bearer <token>' (401 "
        "otherwise). Empty: anyone who reaches /metrics/ may read it (keep it off the proxy).",
        shown="(empty: no token asked)",
    ),
    "PROMETHEUS_MULTIPROC_DIR": Variable(
        "",
        "Several server processes (uvicorn --workers): an empty directory, wiped at each start, "
        "where each process writes its metrics so that any one of them answers a scrape with "
        "the sum (read by prometheus-client). Empty: one process, metrics in its memory.",
        shown="(empty: one process)",
    ),
    "FORWARDED_ALLOW_IPS": Variable(
        [],
        "Comma-separated addresses of the reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto the server believes (read by uvicorn). Empty: the client address is "
        "the connection's, so no client can pick the address the rate limits count.",
        shown="(empty: none)",
    ),
    "API_TOKEN_DAYS": Variable(
        30,
        "An API token stops working this many days after it was made (0: never).",
    ),
    "THROTTLE_ADMIN_LOGIN": Variable(
        "10/min",
        "Admin log-in attempts allowed per client address and, separately, per username.",
    ),
    "WEB_THREADS": Variable(
        8,
        "Threads per server process that run HTTP requests (WebSockets run on its event loop).",
    ),
    "DAILY_VARIANTS": Variable(
        ["astrocyte"],
        "Comma-separated variants with a daily challenge (astrocyte, spider1, spider2, spider4).",
    ),
    "PRACTICE_VARIANTS": Variable(
        ["astrocyte", "spider1", "spider2", "spider4"],
        "Comma-separated variants that keep a pool of verified practice deals.",
    ),
    "DAILY_DAYS_AHEAD": Variable(
        7,
        "Days, today included, kept filled with a verified daily deal.",
        embedded=2,
    ),
    "PRACTICE_POOL_SIZE": Variable(
        50,
        "Verified practice deals kept per practice variant.",
        embedded=5,
    ),
    "SOLVER_SECONDS": Variable(
        60.0,
        "The solver's time limit per deal; past it the deal is 'unknown'.",
    ),
    "SOLVER_NODES": Variable(
        2_000_000,  # games.solver's DEFAULT_MAX_NODES, its command line's (tests/solver)
        "Positions the solver searches at most to prove one deal, then it is 'unknown' (0: "
        "SOLVER_SECONDS alone); a deal gets the same verdict on any machine that reaches "
        "them within SOLVER_SECONDS.",
    ),
    "SOLVER_IMPROVE_NODES": Variable(
        3_000_000,  # games.solver's DEFAULT_IMPROVE_NODES, its command line's (tests/solver)
        "Positions the solver may search for a shorter line once a deal is proven (the par), "
        "within SOLVER_SECONDS; 0 keeps the first line.",
    ),
    "SOLVER_OPENING_IMPROVE_NODES": Variable(
        100_000,
        "The improve budget instead of SOLVER_IMPROVE_NODES for a candidate proven while today "
        "has no daily of its variant (a fresh install): the day opens within seconds, and the "
        "par of that line stays the day's.",
    ),
    "SOLVER_NICENESS": Variable(
        0,
        "Above 0: each verification's solver runs in a child process at this niceness, so "
        "that requests keep the CPU; 0: in the verifying process itself (a worker).",
        embedded=10,
    ),
    "SOLVER_MAX_MEMORY_MB": Variable(
        1024,
        "The solver's memory bound per deal, in MiB.",
    ),
    "DEAL_VERIFY_SOFT_LIMIT": Variable(
        DERIVED,
        "Celery soft time limit of a verification: the deal is stored as 'unknown'.",
        shown="SOLVER_SECONDS + 30",
    ),
    "DEAL_VERIFY_HARD_LIMIT": Variable(
        DERIVED,
        "Celery hard time limit of a verification: the worker process is killed.",
        shown="DEAL_VERIFY_SOFT_LIMIT + 30",
    ),
    "DEAL_VERIFY_LEASE_MARGIN": Variable(
        30,
        "Seconds past the hard limit after which a deal left 'verifying' is taken over.",
    ),
    "DAILIES_PREPARE_EVERY": Variable(
        600,
        "Seconds between two runs of the beat task dailies_prepare.",
    ),
    "ROOMS_TIDY_EVERY": Variable(
        15,
        "Seconds between two runs of the beat task rooms_tidy (closes rooms left empty, ends "
        "races past their time limit).",
    ),
    "REMINDERS_EVERY": Variable(
        60,
        "Seconds between two runs of the beat task that sends the due reminders (Web Push: "
        "docs/operations.md).",
    ),
    "VAPID_PRIVATE_KEY": Variable(
        "",
        "The Web Push (VAPID) private key: base64url of the raw P-256 key. Empty: read from "
        "the git-ignored file vapid-private-key.txt, which `scripts/dev.py run` writes when "
        "absent; with neither, no reminder is sent.",
        shown="(empty)",
    ),
    "VAPID_SUBJECT": Variable(
        "mailto:admin@localhost",
        "Who runs this server, for the push services (a mailto: or https: address).",
    ),
    "CELERY_TASK_DEFAULT_QUEUE": Variable(
        "celery",
        "The queue tasks are sent to and workers consume.",
    ),
    "CELERY_VISIBILITY_TIMEOUT": Variable(
        DERIVED,
        "Seconds before Redis hands an unacknowledged task (its worker died) to another worker.",
        shown="DEAL_VERIFY_HARD_LIMIT + 60",
    ),
    "CELERY_RESTORE_INTERVAL": Variable(
        10,
        "Seconds between a worker's sweeps for tasks abandoned by dead workers.",
    ),
    "CELERY_RESTORE_THROTTLE": Variable(
        10,
        "Only every Nth sweep really scans Redis.",
    ),
    "THROTTLE_SIGNUP": Variable(
        "20/hour",
        "Sign-ups allowed per client address (DRF rate: N/sec|min|hour|day).",
    ),
    "THROTTLE_LOGIN": Variable(
        "30/min",
        "Log-in and token requests allowed per client address.",
    ),
    "THROTTLE_ACTIONS": Variable(
        "600/min",
        "Action posts, starts and resigns allowed per player.",
    ),
    "THROTTLE_HINTS": Variable(
        "20/min",
        "Autocomplete and analysis requests allowed per player.",
    ),
    "THROTTLE_PRACTICE_HINTS": Variable(
        "120/min",
        "Hint requests allowed per player: twice what a player asking one a second would, so "
        "only a program meets it (a game's hints are bounded by HINTS_PER_GAME).",
    ),
    "ACTIONS_MAX_BATCH": Variable(
        200,
        "Most actions accepted in one post.",
    ),
    "HINTS_PER_GAME": Variable(
        100,
        "Hints one practice game may have; the next ask answers 409 hint_budget_spent.",
    ),
    "HINT_SECONDS": Variable(
        5.0,
        "The solver's time limit for one hint in a practice attempt (and for autocomplete).",
    ),
    "HINT_NODES": Variable(
        100000,
        "Positions (nodes) the solver searches at most for one hint (and for autocomplete): "
        "the same position gets the same hint on any machine that reaches them within "
        "HINT_SECONDS.",
    ),
    "HINT_SOLVES_PER_PROCESS": Variable(
        1,
        "Embedded run (no workers): hint searches one server process runs at once; another hint "
        "then answers 503.",
    ),
    "HINT_WAITS_PER_PROCESS": Variable(
        2,
        "With workers: hints one server process lets wait for a worker at once (each holds one "
        "of WEB_THREADS); another then answers 503.",
    ),
    "HINT_QUEUE": Variable(
        "",
        "With workers: the Celery queue of hint searches (e.g. hints, with a worker of its own).",
        shown="(empty: the default queue)",
    ),
    "HINT_QUEUE_SECONDS": Variable(
        5.0,
        "With workers: how long a hint waits for a free worker beyond HINT_SECONDS before "
        "answering 503.",
    ),
    "ANALYSIS_SECONDS": Variable(
        600.0,
        "Worker time one game analysis may take before its job is stopped (Celery's limit, and "
        "when asking again starts it over); never decides a verdict: the node budgets do.",
    ),
    "ANALYSIS_POSITION_SECONDS": Variable(
        5.0,
        "No longer used: a position's budget is in nodes (ANALYSIS_POSITION_NODES), so that "
        "the same game gets the same analysis on any machine.",
    ),
    "ANALYSIS_POSITION_NODES": Variable(
        50000,
        "Positions (nodes) searched at most to decide one position of a game analysis "
        "(games.solver.decide: winnable, proven lost, or unknown).",
    ),
    "ANALYSIS_NODES": Variable(
        2000000,
        "Positions (nodes) one game analysis may search in all (positions left over are unknown).",
    ),
    "PLAUSIBLE_MIN_SECONDS_PER_ACTION": Variable(
        0.12,
        "An attempt whose median seconds per action is below this is flagged for the admins.",
    ),
    "PLAUSIBLE_MIN_ACTIONS": Variable(
        30,
        "Actions needed before the per-action pace is judged.",
    ),
    "PLAUSIBLE_MIN_WIN_SECONDS": Variable(
        60.0,
        "A win faster than this many seconds is flagged.",
    ),
    "PLAUSIBLE_SOLUTION_RUN_SHARE": Variable(
        0.8,
        "A ranked win whose log holds this share of the deal's stored solution as one contiguous"
        " run is flagged (0 to 1).",
    ),
}

env = environ.Env()


def embedded_run() -> bool:
    """REDIS_URL unset: the README's one-process run, with its laptop-sized defaults."""
    return not env.str("REDIS_URL", default="").strip()


def setting(name: str, *, default: Any = DERIVED) -> Any:
    """The variable ``name`` from the environment, read as its registered default's type
    (``default`` only for a derived one, which the registry cannot hold); unset, the
    embedded run's default where it has one of its own."""
    variable = ENVIRONMENT_VARIABLES[name]
    value = variable.default if default is DERIVED else default
    if default is DERIVED and variable.embedded is not None and embedded_run():
        value = variable.embedded
    if value is DERIVED:
        raise TypeError(f"{name} has a derived default: give it")
    if isinstance(value, bool):
        return env.bool(name, default=value)
    if isinstance(value, int):
        return env.int(name, default=value)
    if isinstance(value, float):
        return env.float(name, default=value)
    if isinstance(value, list):
        return env.list(name, default=value)
    return env.str(name, default=value)
