"""Test-suite wiring: service markers and the reusable Celery worker fixture.

Tests that need a real service carry a marker:

    @pytest.mark.postgres   needs DATABASE_URL pointing at PostgreSQL
    @pytest.mark.redis      needs REDIS_URL
    @pytest.mark.celery     starts a real worker (tests/celery_worker.py); needs REDIS_URL
    @pytest.mark.browser    needs a headless Chromium on PATH
    @pytest.mark.native     needs the compiled build, current (games/engine/native.py)

Without the service such a test is skipped with a reason ("needs PostgreSQL: set
DATABASE_URL=…"), and the run ends with a summary listing every one of them. With
REQUIRE_SERVICES=1 (as .ci/run sets for the full stack) a missing service fails the test
instead; with REQUIRE_SERVICES=embedded (.ci/run's run of the embedded default) only
PostgreSQL and Redis may be missing, so a test skips only when it needs one of those.
"""

from __future__ import annotations

import os
import shutil
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.throttling import ScopedRateThrottle

pytest_plugins = ["tests.celery_worker", "tests.clean_tree"]

# The improve-par phase of a verification gets a small budget in tests (the default,
# SOLVER_IMPROVE_NODES, gives it 30-60 s a deal): enough to run it, not to wait for it.
# Set here for the workers the tests start (they inherit the environment) and by the
# fixture below for this process, whose settings are read before this file.
TEST_IMPROVE_NODES = 2_000
os.environ.setdefault("SOLVER_IMPROVE_NODES", str(TEST_IMPROVE_NODES))

SKIP_PREFIX = "needs "
# The longest a test's teardown waits for the live pushes it set off (a board window is 250 ms).
LIVE_SETTLE_SECONDS = 5.0


def _postgres_available() -> bool:
    from django.conf import settings

    return "postgresql" in settings.DATABASES["default"]["ENGINE"]


def _redis_available() -> bool:
    from django.conf import settings

    return bool(settings.REDIS_URL)


def _browser_available() -> bool:
    return any(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome"))


def _native_available() -> bool:
    from games.engine import native

    return native.status() == "compiled"


SERVICES: dict[str, tuple[Callable[[], bool], str]] = {
    "postgres": (
        _postgres_available,
        "needs PostgreSQL: set DATABASE_URL=postgres://user@host:5432/astrocyte",
    ),
    "redis": (_redis_available, "needs Redis: set REDIS_URL=redis://host:6379/0"),
    "celery": (
        _redis_available,
        "needs Redis for a real Celery worker: set REDIS_URL=redis://host:6379/0",
    ),
    "browser": (_browser_available, "needs a headless Chromium: install Debian's chromium"),
    "caddy": (
        lambda: shutil.which("caddy") is not None,
        "needs Caddy (the compose stack's proxy): install Debian's caddy",
    ),
    "native": (
        _native_available,
        "needs the compiled build of the engine and solver: python scripts/build_native.py "
        "(mypy and a C compiler; scripts/dev.py test runs it)",
    ),
    "compose": (
        lambda: shutil.which("docker-compose") is not None,
        "needs docker-compose to validate docker-compose.yml: install Debian's docker-compose",
    ),
}


# What the embedded default lacks by design: REQUIRE_SERVICES=embedded lets tests of these skip.
EMBEDDED_LACKS = frozenset({"postgres", "redis", "celery"})


def services_required(service: str = "") -> bool:
    """Whether a missing ``service`` (a marker's name; "" for any other tool) is a failure."""
    value = os.environ.get("REQUIRE_SERVICES", "").strip().lower()
    if value == "embedded":
        return service not in EMBEDDED_LACKS
    return value in ("1", "true", "yes")


def missing_service(item: pytest.Item) -> tuple[str, str] | None:
    """(marker, reason) of the first service the test needs and this run lacks."""
    for marker_name, (available, reason) in SERVICES.items():
        if item.get_closest_marker(marker_name) is not None and not available():
            return marker_name, reason
    return None


# The modules whose tests run real solver searches, servers or threads for seconds each
# (the largest summed durations of the suite's service-free part): marked `slow`, so that
# `scripts/dev.py test --quick` leaves them out. CI runs everything.
# The slow set, measured (`python3.11 scripts/dev.py slow-tests`): the test ids that took a
# second or more; `test --quick` leaves them out.
SLOW_TESTS = frozenset(
    line.strip()
    for line in (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    missing = missing_service(item)
    if missing is None:
        return
    service, reason = missing
    if services_required(service):
        pytest.fail(f"{reason} (REQUIRE_SERVICES forbids skipping it)", pytrace=False)
    pytest.skip(reason)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Before any fixture is torn down (the test's database among them), let the live pushes
    the test set off run to their end: a board's flush reads the database a window after
    the finish that scheduled it."""
    from core.live import wait_idle

    if not wait_idle(LIVE_SETTLE_SECONDS):
        warnings.warn(
            f"live pushes still running {LIVE_SETTLE_SECONDS} s after {item.nodeid}",
            stacklevel=1,
        )
    return (yield)


def pytest_report_header(config: pytest.Config) -> list[str]:
    from django.conf import settings

    database = settings.DATABASES["default"]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    return [
        f"astrocyte services: database={database['ENGINE'].rsplit('.', 1)[-1]}, "
        f"channel layer={layer.rsplit('.', 1)[-1]}, "
        f"celery eager={settings.CELERY_TASK_ALWAYS_EAGER}, "
        f"REQUIRE_SERVICES={os.environ.get('REQUIRE_SERVICES') or '0'}"
    ]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    by_reason: dict[str, list[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        if not (isinstance(longrepr, tuple) and len(longrepr) == 3):
            continue
        reason = str(longrepr[2]).removeprefix("Skipped: ")
        if reason.startswith(SKIP_PREFIX):
            by_reason.setdefault(reason, []).append(report.nodeid)
    if not by_reason:
        return
    total = sum(len(ids) for ids in by_reason.values())
    terminalreporter.section("tests skipped for want of services")
    for reason, node_ids in by_reason.items():
        terminalreporter.write_line(f"{reason}:")
        for node_id in node_ids:
            terminalreporter.write_line(f"    {node_id}")
    terminalreporter.write_line(
        f"{total} test(s) skipped for want of services; "
        "set DATABASE_URL and REDIS_URL to run them (REQUIRE_SERVICES=1 makes this an error)"
    )


GENEROUS_RATES = {
    "signup": "1000/min",
    "login": "1000/min",
    "actions": "10000/min",
    "hints": "1000/min",
    "practice_hints": "1000/min",
}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """On SQLite the test database is a file (one per xdist process), not pytest-django's
    in-memory default: the embedded default is tested as it runs, with a real server, a
    browser and several threads on one database file that other processes can open
    (``database_url_for_worker``). PostgreSQL's test database is left as pytest-django
    names it."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    folder = tmp_path_factory.mktemp("sqlite")
    database.setdefault("TEST", {})["NAME"] = str(folder / f"test-{worker}.sqlite3")


@pytest.fixture(autouse=True)
def _small_improve_budget(settings: Any) -> None:
    settings.SOLVER_IMPROVE_NODES = TEST_IMPROVE_NODES


@pytest.fixture(autouse=True)
def _nothing_held_over() -> Iterator[None]:
    """No play cursor or throttle lease the process held for another test: a rolled-back
    test's ids are used again by the next one (games/api/held_cursors.py,
    core/throttles.py)."""
    from core.throttles import held_leases
    from games.api.held_cursors import held_cursors

    held_cursors.clear()
    held_leases.clear()
    yield
    held_cursors.clear()
    held_leases.clear()


@pytest.fixture
def fresh_throttles(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A cache of its own for the test (no counts carried over), and rates tests won't hit
    (autouse in tests/games/ and tests/accounts/)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-{uuid.uuid4()}",
        }
    }
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", dict(GENEROUS_RATES))
    yield


class ReadCountingClock:
    """A clock that moves only when it is read, ``step`` seconds a read: the solver's
    searches read it at their periodic checks (every ``CHECK_EVERY`` expansions), so a time
    limit becomes a number of checks, the same on any machine."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * self.step


@pytest.fixture
def search_clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], ReadCountingClock]:
    """``search_clock(step)``: the solver's clock (games/solver/clock.py, which every search
    and ``solve`` read) replaced by a ``ReadCountingClock``."""
    from games.solver import clock

    def install(step: float) -> ReadCountingClock:
        fake = ReadCountingClock(step)
        monkeypatch.setattr(clock, "time", fake)
        return fake

    return install
