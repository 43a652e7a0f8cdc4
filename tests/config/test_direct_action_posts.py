"""Action posts answered beside Django (config/direct_action_posts.py): the same status, body
and headers as Django's own answer to the same request, each request counted once, and
everything that is not the plain case handed to Django untouched.

Each request goes through ASGI as uvicorn sends it. Django's answer to the same request
comes from ``config.asgi.django_http_app``: an accepted batch posted again is a retry
there, answered as the first time, so the two answers must be equal byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from prometheus_client import REGISTRY
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle

from config import asgi
from config.direct_action_posts import KNOWN_MIDDLEWARE, DirectActionPosts
from core.metrics import PREFIX
from games.api import batch_answers
from games.api.play_threads import release_connections
from games.models import Attempt, DailyChallenge
from games.services.attempts import attempt_start_ranked
from leaderboards import live
from tests.factories import make_player
from tests.games.api_support import hidden_cards, solution_of, todays_challenge
from tests.games.test_api_attempts import board_after

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fresh_throttles"),
]

db = database_sync_to_async
ROUTE = "api/v1/attempts/<int:attempt_id>/actions/"
Headers = list[tuple[bytes, bytes]]


class CountingApp:
    """Django's HTTP application, counting the requests that reach it."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await asgi.django_http_app(scope, receive, send)


@pytest_asyncio.fixture(autouse=True)
async def _no_connection_left_behind(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    for kind in ("board", "progress"):
        monkeypatch.setitem(live.WINDOW_SECONDS, kind, 0.1)
    yield
    await asyncio.sleep(0.5)  # the live pushes of the game, while the database is there
    await db(_close_connections)()
    await asyncio.to_thread(release_connections)


def _close_connections() -> None:
    for wrapper in connections.all(initialized_only=True):
        BaseDatabaseWrapper.close(wrapper)


@pytest.fixture
def django_app() -> CountingApp:
    return CountingApp()


@pytest.fixture
def direct(django_app: CountingApp) -> DirectActionPosts:
    return DirectActionPosts(django_app)


def _started(name: str) -> tuple[Any, Attempt, list[str], str]:
    """A player with a ranked attempt at today's challenge, its winning line, a token."""
    player = make_player(name)
    challenge = DailyChallenge.objects.first() or todays_challenge()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    token = Token.objects.create(user=player)
    return player, attempt, solution_of(challenge.deal), token.key


def plain_headers(key: str, body: bytes) -> Headers:
    """What an API client (curl, requests, the bench) sends."""
    sent = {
        "host": "localhost:8000",
        "authorization": f"Token {key}",
        "content-type": "application/json",
        "accept": "application/json",
        "content-length": str(len(body)),
    }
    return [(name.encode(), value.encode()) for name, value in sent.items()]


async def request(
    app: Any, path: str, body: bytes, headers: Headers, query: bytes = b""
) -> dict[str, Any]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 51000),
    }
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await communicator.receive_output(timeout=10)
    assert start["type"] == "http.response.start", start
    content = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        content += message.get("body", b"")
        if not message.get("more_body", False):
            break
    return {"status": start["status"], "headers": start["headers"], "body": content}


async def post(
    app: Any, attempt_id: int, key: str, data: Any, extra: Headers | None = None
) -> dict[str, Any]:
    body = json.dumps(data).encode()
    headers = plain_headers(key, body) + (extra or [])
    return await request(app, f"/api/v1/attempts/{attempt_id}/actions/", body, headers)


def same_answer(direct: dict[str, Any], django: dict[str, Any]) -> None:
    """Equal status, body and headers (their order is not meaning)."""
    assert direct["status"] == django["status"]
    assert direct["body"] == django["body"]
    assert sorted(direct["headers"]) == sorted(django["headers"])


def served(route_status: str) -> float:
    labels = {"method": "POST", "route": ROUTE, "status": route_status}
    return REGISTRY.get_sample_value(f"{PREFIX}_http_request_duration_seconds_count", labels) or 0.0


async def test_a_game_won_by_direct_posts_is_answered_as_django_answers_it(
    direct: DirectActionPosts, django_app: CountingApp
) -> None:
    _player, attempt, line, key = await db(_started)("ada")
    counted = served("200")
    batches = [(offset, line[offset : offset + 4]) for offset in range(0, len(line), 4)]
    answers = []
    for offset, batch in batches:
        answer = await post(direct, attempt.pk, key, {"offset": offset, "actions": batch})
        assert answer["status"] == 200, answer["body"]
        answers.append(answer)
    assert django_app.calls == 0  # every one answered beside Django
    assert served("200") == counted + len(batches)  # and timed in the endpoint's series
    assert json.loads(answers[-1]["body"])["won"]
    stored = await db(Attempt.objects.get)(pk=attempt.pk)
    assert list(stored.log) == line and stored.won
    # Django answers each batch again (a retry) with the very same bytes and headers.
    for (offset, batch), answer in zip(batches, answers, strict=True):
        again = await post(django_app, attempt.pk, key, {"offset": offset, "actions": batch})
        same_answer(answer, again)


def request_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, Any]]:
    """What ``django.request`` logged since the last call, then forgotten."""
    lines = [
        (r.levelname, r.getMessage(), getattr(r, "status_code", None))
        for r in caplog.records
        if r.name == "django.request"
    ]
    caplog.clear()
    return lines


async def test_refusals_are_djangos_own(
    direct: DirectActionPosts, django_app: CountingApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="django.request")
    _player, attempt, line, key = await db(_started)("ada")
    _other, _others_attempt, _line, other_key = await db(_started)("bob")
    assert (await post(direct, attempt.pk, key, {"offset": 0, "actions": line[:2]}))[
        "status"
    ] == 200
    board = board_after(attempt.deal, line[:2])
    illegal = "t1-t1"
    refusals = {
        "stale offset": (key, attempt.pk, {"offset": 0, "actions": line[2:3]}, 409),
        "offset ahead": (key, attempt.pk, {"offset": 7, "actions": line[2:3]}, 409),
        "illegal action": (key, attempt.pk, {"offset": 2, "actions": [illegal]}, 400),
        "not an action": (key, attempt.pk, {"offset": 2, "actions": ["zz"]}, 400),
        "another's attempt": (other_key, attempt.pk, {"offset": 2, "actions": line[2:3]}, 404),
        "no such attempt": (key, 987654, {"offset": 0, "actions": line[:1]}, 404),
    }
    for what, (token, attempt_id, data, status) in refusals.items():
        request_lines(caplog)
        answer = await post(direct, attempt_id, token, data)
        assert answer["status"] == status, (what, answer["body"])
        logged = request_lines(caplog)
        same_answer(answer, await post(django_app, attempt_id, token, data))
        # and the same line in the server's log as Django writes for it
        assert logged == request_lines(caplog), what
        assert logged and logged[0][0] == "WARNING" and str(attempt_id) in logged[0][1]
        # A second account learns nothing of the deal: no hidden card in any refusal.
        if token == other_key:
            assert not any(card.encode() in answer["body"] for card in hidden_cards(board))
    assert django_app.calls == len(refusals)  # (the comparisons only)
    stored = await db(Attempt.objects.get)(pk=attempt.pk)
    assert list(stored.log) == line[:2]


async def test_a_throttled_post_is_djangos_429_and_counted_once(
    direct: DirectActionPosts, django_app: CountingApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "actions", "3/hour")
    _player, attempt, line, key = await db(_started)("ada")
    for offset in range(2):
        answer = await post(direct, attempt.pk, key, {"offset": offset, "actions": [line[offset]]})
        assert answer["status"] == 200
    third = await post(django_app, attempt.pk, key, {"offset": 2, "actions": [line[2]]})
    assert third["status"] == 200  # Django's request and the direct ones share one counter
    throttled = await post(direct, attempt.pk, key, {"offset": 3, "actions": [line[3]]})
    assert throttled["status"] == 429
    assert dict(throttled["headers"])[b"retry-after"].isdigit()
    same_answer(
        throttled, await post(django_app, attempt.pk, key, {"offset": 3, "actions": [line[3]]})
    )
    stored = await db(Attempt.objects.get)(pk=attempt.pk)
    assert list(stored.log) == line[:3]


async def test_what_is_not_the_plain_case_goes_to_django(
    direct: DirectActionPosts, django_app: CountingApp
) -> None:
    _player, attempt, line, key = await db(_started)("ada")
    path = f"/api/v1/attempts/{attempt.pk}/actions/"
    good = json.dumps({"offset": 0, "actions": line[:1]}).encode()
    ahead = json.dumps({"offset": 5, "actions": line[:1]}).encode()  # 409, nothing stored
    cases: dict[str, tuple[bytes, Headers, int]] = {
        "unknown token": (good, plain_headers("0" * 40, good), 401),
        "no credentials": (
            good,
            [h for h in plain_headers(key, good) if h[0] != b"authorization"],
            401,
        ),
        "not JSON": (b"{offset", plain_headers(key, b"{offset"), 400),
        "offset not a number": (
            b'{"offset": "a", "actions": ["x"]}',
            plain_headers(key, b'{"offset": "a", "actions": ["x"]}'),
            400,
        ),
        "a form": (
            b"offset=0",
            [
                (n, b"application/x-www-form-urlencoded" if n == b"content-type" else v)
                for n, v in plain_headers(key, b"offset=0")
            ],
            400,
        ),
        "asks for HTML": (  # (DRF's browsable API, when its renderer is on)
            ahead,
            [(n, b"text/html" if n == b"accept" else v) for n, v in plain_headers(key, ahead)],
            409,
        ),
        "unknown host": (
            good,
            [(n, b"evil.example" if n == b"host" else v) for n, v in plain_headers(key, good)],
            400,
        ),
    }
    for what, (body, headers, status) in cases.items():
        before = django_app.calls
        answer = await request(direct, path, body, headers)
        assert django_app.calls == before + 1, what
        assert answer["status"] == status, (what, answer["body"][:300])
    # A query string (here one core/request_guard.py refuses) is Django's to read.
    answer = await request(direct, path, good, plain_headers(key, good), query=b"x=%00")
    assert answer["status"] == 400 and django_app.calls == len(cases) + 1
    stored = await db(Attempt.objects.get)(pk=attempt.pk)
    assert list(stored.log) == []
    # And after all that, the plain post is still answered beside Django.
    answer = await request(direct, path, good, plain_headers(key, good))
    assert answer["status"] == 200 and django_app.calls == len(cases) + 1


async def test_the_served_application_answers_token_posts_beside_django() -> None:
    """config.asgi.application itself takes the direct path (the bench and README's run)."""
    _player, attempt, line, key = await db(_started)("ada")
    http = asgi.application.application_mapping["http"]
    assert isinstance(http, DirectActionPosts) and http.app is asgi.django_http_app
    answer = await post(asgi.application, attempt.pk, key, {"offset": 0, "actions": line[:3]})
    assert answer["status"] == 200 and json.loads(answer["body"])["offset"] == 3


@pytest.mark.parametrize(
    "name, value",
    [
        ("SECURE_SSL_REDIRECT", True),
        ("USE_X_FORWARDED_HOST", True),
        ("DISALLOWED_USER_AGENTS", ["curl"]),
        ("MIDDLEWARE", [*KNOWN_MIDDLEWARE, "django.middleware.gzip.GZipMiddleware"]),
    ],
)
async def test_settings_it_was_not_written_for_send_every_post_to_django(
    direct: DirectActionPosts, django_app: CountingApp, settings: Any, name: str, value: Any
) -> None:
    _player, attempt, line, key = await db(_started)("ada")
    setattr(settings, name, value)
    await post(direct, attempt.pk, key, {"offset": 0, "actions": line[:1]})
    assert django_app.calls == 1


async def test_a_failure_is_a_logged_500_in_the_apis_shape_and_stores_nothing(
    direct: DirectActionPosts, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _player, attempt, line, key = await db(_started)("ada")

    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(batch_answers, "attempt_push_actions", broken)
    answer = await post(direct, attempt.pk, key, {"offset": 0, "actions": line[:2]})
    assert answer["status"] == 500
    assert json.loads(answer["body"])["error"]["code"] == "server_error"
    assert "a bug" not in answer["body"].decode()
    assert any(record.exc_info for record in caplog.records if record.name == "django.request")
    stored = await db(Attempt.objects.get)(pk=attempt.pk)
    assert list(stored.log) == []
