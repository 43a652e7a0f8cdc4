"""A real Celery worker for tests: a subprocess against REDIS_URL, killed at teardown.

Use it from any test marked `celery` (and `redis`):

    @pytest.mark.celery
    @pytest.mark.redis
    def test_something(celery_worker: CeleryWorker) -> None:
        assert my_task.delay(42).get(timeout=celery_worker.timeout) == …

The worker consumes a queue of its own (so it never steals work from another
worker on the same Redis, nor the reverse) and, while the fixture is active, this
process's Celery app sends to that queue and is not eager. The worker uses the
test database (PostgreSQL's, or SQLite's file): tasks that read or write rows need
`@pytest.mark.django_db(transaction=True)`, so that what the test writes is committed
and the worker sees it. One worker per test
session (per xdist process); `start_celery_worker` starts more if a test needs them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.run_support import stop_process

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class CeleryWorker:
    hostname: str
    queue: str
    process: subprocess.Popen[bytes]
    log_path: Path
    timeout: float = 60.0
    env: dict[str, str] = field(default_factory=dict, repr=False)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, grace=20)  # SIGTERM: a warm shutdown, the task finishes


def database_url_for_worker() -> str | None:
    """The test database as a URL another process can open: PostgreSQL's, or SQLite's file
    (tests/conftest.py makes the SQLite test database a file); None for an in-memory one."""
    from django.db import connection

    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        name = str(settings_dict["NAME"])
        if name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
            return None
        return f"sqlite:///{name}"
    if connection.vendor != "postgresql":
        return None
    user = settings_dict.get("USER") or ""
    password = settings_dict.get("PASSWORD") or ""
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "localhost"
    port = settings_dict.get("PORT") or "5432"
    return f"postgres://{credentials}{host}:{port}/{settings_dict['NAME']}"


def start_celery_worker(
    log_dir: Path,
    *,
    pool: str = "solo",
    concurrency: int = 1,
    ready_timeout: float = 60.0,
    extra_env: dict[str, str] | None = None,
    queue: str | None = None,
) -> CeleryWorker:
    """Start a worker on ``queue`` (a new one by default); tasks it sends go to that queue too."""
    from config.celery import app

    token = uuid.uuid4().hex[:10]
    hostname = f"test-{token}@localhost"
    queue = queue or f"test-{token}"
    log_path = log_dir / f"celery-worker-{token}.log"
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    database_url = database_url_for_worker()
    if database_url:
        env["DATABASE_URL"] = database_url
    env["CELERY_TASK_DEFAULT_QUEUE"] = queue
    env.update(extra_env or {})
    command = [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        f"--pool={pool}", f"--concurrency={concurrency}",
        "-Q", queue, "-n", hostname,
        "--without-gossip", "--without-mingle", "--without-heartbeat",
        "--loglevel=INFO",
    ]  # fmt: skip
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
    worker = CeleryWorker(hostname, queue, process, log_path, env=env)

    deadline = time.monotonic() + ready_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"Celery worker exited with {process.returncode}:\n{worker.log()[-4000:]}"
            )
        if app.control.ping(destination=[hostname], timeout=1.0):
            return worker
    worker.stop()
    raise RuntimeError(f"Celery worker not ready after {ready_timeout}s:\n{worker.log()[-4000:]}")


@contextlib.contextmanager
def app_served_by_a_worker(
    django_db_blocker: Any, log_dir: Path, extra_env: dict[str, str] | None = None
) -> Iterator[CeleryWorker]:
    """A worker of its own (skips the test without Redis); while inside, this process's
    Celery app sends to the worker's queue and is not eager. The worker is stopped after."""
    from django.conf import settings

    from config.celery import app

    if not settings.REDIS_URL:
        pytest.skip("needs Redis for a real Celery worker: set REDIS_URL=redis://host:6379/0")
    with django_db_blocker.unblock():
        worker = start_celery_worker(log_dir, extra_env=extra_env)
    saved = {key: app.conf[key] for key in ("task_always_eager", "task_default_queue")}
    app.conf.task_always_eager = False
    app.conf.task_default_queue = worker.queue
    try:
        yield worker
    finally:
        app.conf.update(saved)
        worker.stop()


@pytest.fixture(scope="session")
def celery_worker(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryWorker]:
    with app_served_by_a_worker(django_db_blocker, tmp_path_factory.mktemp("celery")) as worker:
        yield worker


@pytest.fixture
def tasks_in_process() -> Iterator[None]:
    """Celery tasks run at once, in this process (as in the embedded run, without Redis)."""
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved
