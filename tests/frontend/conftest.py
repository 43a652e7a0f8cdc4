"""Browser tests: the real ASGI server (uvicorn) in a subprocess on the test database, and
Debian's Chromium driven by Python Playwright (never `playwright install`).

The server process uses the same test database as the test, PostgreSQL's or SQLite's file
(so tests that write rows use ``django_db(transaction=True)``: what they commit, the server
sees). With REDIS_URL its channel layer is Redis, on a Redis database of its own so that
parallel test processes never hear each other's pushes; without, the in-memory layer of the
embedded run.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.celery_worker import database_url_for_worker
from tests.chromium import CHROMIUM_ARGS, chromium_path
from tests.factories import PASSWORD
from tests.frontend.a11y import AuditedBrowser, AxeUnavailable, ensure_axe
from tests.run_support import stop_process

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_redis_url(redis_url: str | None) -> str | None:
    """The server's own Redis database number (10 + the xdist worker's index)."""
    if not redis_url:
        return None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = 10 + int(re.sub(r"\D", "", worker) or 0) % 6
    return re.sub(r"(/\d+)?$", f"/{number}", redis_url.rstrip("/"), count=1)


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_server(
    log_dir: Path, extra_env: dict[str, str] | None = None, *, lifespan: str = "off"
) -> Server:
    """The ASGI server on the test database. ``lifespan="on"`` with ``REDIS_URL`` emptied
    in ``extra_env`` is the embedded run (its own beat: games/embedded_lifespan.py)."""
    from django.conf import settings

    database_url = database_url_for_worker()
    if database_url is None:
        pytest.skip("needs a test database another process can open (PostgreSQL, or SQLite's file)")
    port = free_port()
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="tests.frontend.server_settings",
        DATABASE_URL=database_url,
        DEBUG="true",
        THROTTLE_SIGNUP="100000/hour",
        THROTTLE_LOGIN="100000/min",
        THROTTLE_ACTIONS="100000/min",
        LOG_LEVEL="WARNING",
        # The tests' dailies are spider1 (quick to verify) and astrocyte.
        DAILY_VARIANTS="spider1,astrocyte",
        # Game analyses (the replay page's) decided by their node budget, the same on any
        # machine: the seconds are a cap no analysis of these tests reaches, loaded or not.
        ANALYSIS_SECONDS="600",
        ANALYSIS_POSITION_SECONDS="120",
        ANALYSIS_POSITION_NODES="20000",
        ANALYSIS_NODES="400000",
    )
    redis_url = server_redis_url(settings.REDIS_URL)
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra_env or {})
    log_path = log_dir / f"uvicorn-{port}.log"
    command = [
        sys.executable, "-m", "uvicorn", "config.asgi:application",
        "--host", "127.0.0.1", "--port", str(port), "--no-access-log", "--log-level", "warning",
        "--lifespan", lifespan,
    ]  # fmt: skip
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
    server = Server(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited with {process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(f"{server.url}/api/v1/", timeout=1):
                return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    stop_server(server)
    raise RuntimeError(f"uvicorn not ready after 30 s:\n{server.log()}")


def stop_server(server: Server) -> None:
    stop_process(server.process)


@pytest.fixture(scope="session")
def asgi_server(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    with django_db_blocker.unblock():
        server = start_server(tmp_path_factory.mktemp("uvicorn"))
    try:
        yield server
    finally:
        stop_server(server)
        with django_db_blocker.unblock():
            wait_for_server_sessions_to_end()


def wait_for_server_sessions_to_end(timeout: float = 10.0) -> None:
    """PostgreSQL ends a dead client's backends a moment later: wait, so that the test
    database can be dropped at the end of the session."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return  # a SQLite file is dropped whoever still has it open
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            (others,) = cursor.fetchone()
        if not others:
            break
        time.sleep(0.1)
    connection.close()


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser script (npm ci in frontend/ when missing: tests/frontend/a11y.py)."""
    from tests.conftest import services_required

    try:
        return ensure_axe()
    except AxeUnavailable as error:
        if services_required():
            pytest.fail(f"the accessibility audit cannot run: {error} (REQUIRE_SERVICES=1)")
        pytest.skip(f"the accessibility audit cannot run: {error}")


@pytest.fixture(scope="session")
def screenshots_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests write their screenshots: ``SCREENSHOTS_DIR`` when set
    (`scripts/dev.py screenshots` sets it, then copies them into docs/screenshots), else a
    temporary folder, so that a test run leaves the tree as it was."""
    folder = os.environ.get("SCREENSHOTS_DIR")
    if not folder:
        return tmp_path_factory.mktemp("screenshots")
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch, axe_script: Path) -> Iterator[Any]:
    """A Chromium for one test, whose every context injects axe-core into every page
    (tests/frontend/a11y.py). Playwright's sync API keeps an event loop in this thread
    while it runs, so Django's guard against ORM calls from async code would fire on the
    test's own (synchronous) ORM calls: it is lifted for this test only, and Playwright is
    stopped at the end of the test, before the database is flushed."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield AuditedBrowser(chromium, axe_script)
        finally:
            chromium.close()


@dataclass
class Daily:
    challenge_id: int
    solution: list[str]
    variant: str
    seed: int = 2


def make_daily(variant: str = "spider1", seed: int = 2) -> Daily:
    """Today's verified daily of ``variant`` (with its stored winning line)."""
    from django.utils import timezone

    from games.services.deals import deal_schedule
    from tests.factories import verified_deal

    deal = verified_deal(variant, seed)
    today: dt.date = timezone.now().date()
    challenge = deal_schedule(deal=deal, date=today)
    close_connection()
    return Daily(challenge.pk, list(deal.solution or []), variant, seed)


@pytest.fixture
def daily(transactional_db: Any) -> Daily:
    return make_daily()


def make_player(username: str) -> Any:
    """tests/factories.make_player with the password the browser signs in with."""
    from tests import factories

    user = factories.make_player(username, password=PASSWORD)
    close_connection()
    return user


def close_connection() -> None:
    """Close this context's database connection. Under Playwright's sync API the test runs
    in a greenlet with contextvars of its own, so Django opens a connection there that
    nothing else would close, and the test database could not be dropped at the end."""
    from django.db import connection

    connection.close()
