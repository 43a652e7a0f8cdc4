"""The README's run (`scripts/dev.py run`) as a stranger finds it: a real server started
with the environment `run` gives it (tests/config/run_settings.py: the project's settings,
static files collected into the test's folder, one address that fails on purpose), on the
test database; in the full stack with PostgreSQL and a Redis database of this helper's.

Without being asked to, the run is not in DEBUG: a failure never renders Django's technical
page (the traceback, the settings, the request with the caller's token), odd and hostile
requests get the API's JSON error shape, an unknown WebSocket address is refused at the
handshake, a body too large is answered 413 to a client that sends it whole before
reading, and the static files are served all the same.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from django.conf import settings as django_settings
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.dev_script import dev_script
from tests.frontend.conftest import Server, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def run_environment(static_root: Path) -> dict[str, str]:
    """What `scripts/dev.py run` (no flag, DEBUG not set) gives its server, with this
    test's settings module; a SECRET_KEY is given, so that no key file is made in the tree."""
    environ = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    env = dev_script().run_environment(environ, prod=False, debug=False)
    env.update(
        DJANGO_SETTINGS_MODULE="tests.config.run_settings", TEST_STATIC_ROOT=str(static_root)
    )
    if django_settings.REDIS_URL:
        env["REDIS_URL"] = django_settings.REDIS_URL  # this test run's own Redis database
    return env


@pytest.fixture(scope="module")
def server(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("run")
    env = run_environment(folder / "static")
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert collected.returncode == 0, collected.stderr
    keys = ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "TEST_STATIC_ROOT", "REDIS_URL")
    with django_db_blocker.unblock():
        started = start_server(folder, {key: env[key] for key in keys if key in env})
    try:
        yield started
    finally:
        stop_server(started)


def ask(server: Server, path: str, data: bytes | None = None, **headers: str) -> tuple[int, bytes]:
    request = urllib.request.Request(f"{server.url}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refusal:
        return refusal.code, refusal.read()


def json_error(status_and_body: tuple[int, bytes], status: int) -> dict[str, Any]:
    got, body = status_and_body
    assert got == status, body[:300]
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message", "details"}
    return dict(error)


def test_the_run_is_not_in_debug_unless_asked() -> None:
    dev = dev_script()
    bare = {"SECRET_KEY": "k" * 50}
    assert dev.run_environment(bare, prod=False, debug=False)["DEBUG"] == "false"
    assert dev.run_environment(bare, prod=False, debug=True)["DEBUG"] == "true"
    assert dev.run_environment({**bare, "DEBUG": "1"}, prod=False, debug=False)["DEBUG"] == "true"
    assert dev.run_environment({**bare, "DEBUG": "1"}, prod=True, debug=True)["DEBUG"] == "false"


def test_an_embedded_run_keeps_its_signing_key_across_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = dev_script()
    monkeypatch.setattr(dev, "EMBEDDED_SECRET_KEY_FILE", tmp_path / "key")
    first = dev.run_environment({}, prod=False, debug=False)["SECRET_KEY"]
    again = dev.run_environment({}, prod=False, debug=False)["SECRET_KEY"]
    assert len(first) >= 50 and again == first
    assert (tmp_path / "key").stat().st_mode & 0o077 == 0  # its owner's only


def test_a_failure_never_shows_the_debug_page(server: Server) -> None:
    token = "Token " + "a" * 40
    error = json_error(ask(server, "/api/v1/test-failure/", Authorization=token), 500)
    assert error["code"] == "server_error"
    status, page = ask(server, "/test-failure/", Authorization=token)
    assert status == 500
    for secret in (b"Traceback", b"DeliberateFailure", b"SECRET_KEY", b"a" * 40):
        assert secret not in page
    assert len(page) < 2000, len(page)  # Django's plain "Server Error", not 190 KB of it
    assert "DeliberateFailure" in server.log()  # the operator's log has it


def test_odd_and_hostile_requests_get_the_json_error_shape(server: Server) -> None:
    assert json_error(ask(server, "/api/v1/nothing%0A/"), 404)["code"] == "not_found"
    assert json_error(ask(server, "/api/v1/challenges/%0A/"), 404)["code"] == "not_found"
    query = "&".join(f"a{n}=1" for n in range(1200))
    error = json_error(ask(server, f"/api/v1/leaderboards/alltime/?{query}"), 400)
    assert "DATA_UPLOAD_MAX_NUMBER_FIELDS" in error["message"]


@pytest.mark.parametrize("megabytes", [3, 12])
def test_a_post_of_megabytes_sent_whole_reads_a_413(server: Server, megabytes: int) -> None:
    """(Over loopback the kernel's buffers take a few megabytes whatever the server does:
    12 MB is refused by a closed connection every time unless the server drains it.)"""
    body = b'{"offset": 0, "actions": ["' + b"x" * (megabytes << 20) + b'"]}'
    answer = ask(
        server,
        "/api/v1/attempts/1/actions/",
        body,
        Authorization="Token " + "a" * 40,
        **{"Content-Type": "application/json"},
    )
    assert json_error(answer, 413)["code"] == "too_large"


def test_an_unknown_socket_address_is_refused_at_the_handshake(server: Server) -> None:
    address = server.url.replace("http://", "ws://")
    before = len(server.log())
    for path in ("/ws/nothing/", "/ws/attempts/x/play/", "/elsewhere"):
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{address}{path}", origin=cast(Any, "http://127.0.0.1"), open_timeout=10)
        assert refused.value.response.status_code == 403
    assert "Traceback" not in server.log()[before:]


def test_static_files_are_served_without_debug(server: Server) -> None:
    status, page = ask(server, "/rules/")
    assert status == 200, page[:300]
    stylesheet = page.decode().split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
    assert stylesheet.startswith("/static/") and stylesheet != "/static/frontend/site.css"
    status, css = ask(server, stylesheet)
    assert status == 200 and len(css) > 1000


def test_the_static_files_are_collected_again_only_when_a_source_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each start of the run without DEBUG needs them collected (5-6 s): only the first,
    and any start after a static file changed or the collection went, pays for it."""
    dev = dev_script()
    source, collected = tmp_path / "app" / "static", tmp_path / "staticfiles"
    source.mkdir(parents=True)
    (source / "site.css").write_text("a")
    monkeypatch.setattr(dev, "STATIC_SOURCES", [source])
    monkeypatch.setattr(dev, "STATIC_ROOT", collected)
    monkeypatch.setattr(dev, "STATIC_STAMP", tmp_path / "stamp")
    runs: list[tuple[str, ...]] = []

    def manage(*args: str, env: dict[str, str] | None = None) -> None:
        runs.append(args)
        collected.mkdir(exist_ok=True)
        (collected / "staticfiles.json").write_text("{}")

    monkeypatch.setattr(dev, "manage", manage)
    dev.collect_static({})
    dev.collect_static({})
    assert len(runs) == 1 and runs[0][0] == "collectstatic"
    (source / "site.css").write_text("changed")
    dev.collect_static({})
    assert len(runs) == 2
    (collected / "staticfiles.json").unlink()
    dev.collect_static({})
    dev.collect_static({})
    assert len(runs) == 3
