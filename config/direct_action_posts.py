"""Action posts of API clients answered beside Django's request stack, on the play threads.

``POST /api/v1/attempts/<id>/actions/`` is the API's one hot path: a client plays a game
through it one action at a time. Through Django (the middleware chain, URL resolution,
DRF's dispatch, its parsing, content negotiation and rendering, the connection checkout
from the pool and its health check) an accepted post cost about three times the CPU of
the same batch over the play socket (docs/api.md). This application answers the plain
case of that request itself, with the socket's own step (``games.api.batch_answers``) on
the socket's threads and their held database connections, and hands every other request
to Django untouched:

- the plain case: ``Authorization: Token <key>``, a JSON body of at most the endpoint's
  budget that is plainly a batch (``games.api.attempts.fast_batch``), ``Accept`` absent,
  ``*/*`` or ``application/json``, a host ``ALLOWED_HOSTS`` takes, no query string, and
  nothing in the settings or the view that would make Django answer differently (another
  middleware, HTTPS redirects, forwarded hosts, refused user agents, requests in a
  transaction, other authentication, permission or throttle classes);
- the token is checked by the API's own ``TokenAuthentication``: an unknown, expired or
  inactive one goes to Django, which answers its 401;
- then the ``actions`` rate limit (the same counter), the input, and
  ``attempt_push_actions``, exactly as the endpoint: same status, same body byte for byte
  (DRF's own JSON renderer), same headers (tests/config/test_direct_action_posts.py
  compares them with Django's answers); the request is timed in the same
  ``http_request_duration_seconds`` series, under the endpoint's route, and a refusal
  writes Django's own warning line (``Conflict: /api/v1/attempts/7/actions/``).

Nothing is written before the token and the rate limit have passed, and nothing goes to
Django after the rate limit has counted the request, so a request is counted once.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection
from django.http.request import split_domain_port, validate_host
from django.urls import resolve, reverse
from rest_framework import exceptions
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.utils import json as drf_json

from accounts.authentication import TokenAuthentication
from core.http_errors import server_error_body
from core.request_metrics import HTTP_REQUEST_SECONDS
from core.throttles import WindowRateThrottle, take_user_request, user_counter
from games.api.attempts import AttemptActionsApi, actions_body_budget, fast_batch
from games.api.batch_answers import batch_answer
from games.api.held_cursors import held_cursors
from games.api.play_threads import in_play_thread

log = logging.getLogger("django.request")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]  # (scope, receive, send)
Answer = tuple[int, Any]

# The chain this was written against, written out (not read from the settings: it is what
# the settings are compared with): with any other, every request goes to Django.
KNOWN_MIDDLEWARE = [
    "core.request_metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.request_guard.RequestGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
TOKEN_AUTHENTICATION = "accounts.authentication.TokenAuthentication"
JSON_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8"})
ACCEPTED = frozenset({b"*/*", b"application/json"})
PROBE_ID = 918273645  # an id to find the endpoint's address and route with


def settings_allow() -> bool:
    """Whether Django, with these settings and this view, would answer the plain case as
    this does."""
    rest = getattr(settings, "REST_FRAMEWORK", {})
    view = AttemptActionsApi
    return (
        list(settings.MIDDLEWARE) == KNOWN_MIDDLEWARE
        and list(view.authentication_classes[:1]) == [TokenAuthentication]
        and list(view.permission_classes) == [IsAuthenticated]
        and list(view.throttle_classes) == [WindowRateThrottle]
        and not any(db.get("ATOMIC_REQUESTS") for db in settings.DATABASES.values())
        and list(rest.get("DEFAULT_AUTHENTICATION_CLASSES", []))[:1] == [TOKEN_AUTHENTICATION]
        and not settings.SECURE_SSL_REDIRECT
        and settings.SECURE_PROXY_SSL_HEADER is None
        and not settings.USE_X_FORWARDED_HOST
        and not settings.DISALLOWED_USER_AGENTS
        and not settings.PREPEND_WWW
        and JSONParser.strict
    )


def host_allowed(host: bytes) -> bool:
    """What Django's ``request.get_host()`` accepts (else it answers 400 itself)."""
    try:
        domain, _port = split_domain_port(host.decode("ascii"))
    except UnicodeDecodeError:
        return False
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def token_of(authorization: bytes | None) -> str | None:
    """The key of ``Token <key>``, as DRF reads it; None for anything else."""
    if authorization is None:
        return None
    parts = authorization.split()
    if len(parts) != 2 or parts[0].lower() != b"token" or not parts[1].isascii():
        return None
    return parts[1].decode("ascii")


def answer_headers(secure: bool) -> list[tuple[bytes, bytes]]:
    """The headers Django's chain puts on the endpoint's JSON answers (Content-Length
    apart): DRF's view headers, SecurityMiddleware's and XFrameOptionsMiddleware's."""
    headers: list[tuple[str, str]] = [("content-type", "application/json")]
    view_headers = AttemptActionsApi().default_response_headers
    if "Vary" in view_headers:
        headers.append(("vary", view_headers["Vary"]))
    headers.append(("allow", view_headers["Allow"]))
    headers.append(("x-frame-options", settings.X_FRAME_OPTIONS.upper()))
    if settings.SECURE_HSTS_SECONDS and secure:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers.append(("strict-transport-security", hsts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("x-content-type-options", "nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:
        values = [v.strip() for v in policy.split(",")] if isinstance(policy, str) else policy
        headers.append(("referrer-policy", ",".join(values)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    return [(name.encode(), value.encode("latin-1")) for name, value in headers]


def played(attempt_id: int, key: str, data: dict[str, Any]) -> Answer | None:
    """The endpoint's answer to ``data`` posted with token ``key``; None when the token
    does not pass (Django answers that: nothing was counted or written)."""
    for tries_left in (1, 0):
        try:
            user, _token = TokenAuthentication().authenticate_credentials(key)
            break
        except exceptions.AuthenticationFailed:
            return None
        except DatabaseError:
            connection.close()  # the held connection died: once more on a fresh one
            if not tries_left:
                return None  # Django's own request, with the pool's checked connection
    counter = user_counter(AttemptActionsApi.throttle_scope, user.pk)

    def throttle() -> float | None:
        if counter is None:
            return None
        return take_user_request(caches["default"], *counter, time.time())

    cursor = held_cursors.take(attempt_id)
    try:
        return batch_answer(
            attempt_id=attempt_id, user=user, data=data, cursor=cursor, throttle=throttle
        )
    finally:
        held_cursors.give_back(attempt_id, cursor)


def replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body already read from it given again first."""
    given = False

    async def again() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


class DirectActionPosts:
    """ASGI (HTTP) in front of ``app`` (Django): the plain action post answered here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        probe = reverse("attempt-actions", kwargs={"attempt_id": PROBE_ID})
        prefix, suffix = probe.split(str(PROBE_ID))
        self.path = re.compile(re.escape(prefix) + r"([1-9][0-9]{0,17})" + re.escape(suffix))
        self.route = resolve(probe).route
        self.renderer = JSONRenderer()
        self.play = in_play_thread(played)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        match = self.path.fullmatch(scope["path"]) if scope.get("method") == "POST" else None
        key = self._plain(scope) if match is not None else None
        if match is None or key is None:
            return await self.app(scope, receive, send)
        body = await self._body(receive)
        if body is None:
            return  # the client went away
        data = self._data(body)
        answer = None
        if data is not None:
            try:
                answer = await self.play(int(match.group(1)), key, data)
            except Exception:  # a bug: logged as Django logs one, answered in the API's shape
                log.exception("Internal Server Error: %s", scope["path"])
                answer = 500, server_error_body()
        if answer is None:
            return await self.app(scope, replayed(body, receive), send)
        status, content = answer
        rendered = self.renderer.render(content)
        headers = answer_headers(scope.get("scheme") == "https")
        wait = content["error"]["details"]["wait"] if status == 429 else None
        if wait:  # (as DRF's exception handler sets it)
            headers.append((b"retry-after", b"%d" % wait))
        headers.append((b"content-length", str(len(rendered)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": rendered})
        HTTP_REQUEST_SECONDS.labels("POST", self.route, str(status)).observe(
            time.perf_counter() - started
        )
        if 400 <= status < 500:  # the line Django's log_response writes (a 500's is above)
            phrase = HTTPStatus(status).phrase
            log.warning("%s: %s", phrase, scope["path"], extra={"status_code": status})

    @staticmethod
    def _plain(scope: Scope) -> str | None:
        """The token of a request this may answer; None: Django answers it."""
        if scope.get("root_path") or scope.get("query_string") or not settings_allow():
            return None
        seen: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name in seen and name in (b"authorization", b"content-type", b"accept", b"host"):
                return None  # said twice: Django's reading decides
            seen[name] = value
        if b"transfer-encoding" in seen or seen.get(b"content-type", b"").lower() not in JSON_TYPES:
            return None
        if seen.get(b"accept", b"*/*").lower() not in ACCEPTED:
            return None
        if not host_allowed(seen.get(b"host", b"")):
            return None
        try:
            length = int(seen.get(b"content-length", b""))
        except ValueError:
            return None
        if not 0 < length <= actions_body_budget():
            return None  # (past the budget: the guard's 413)
        return token_of(seen.get(b"authorization"))

    @staticmethod
    async def _body(receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)

    @staticmethod
    def _data(body: bytes) -> dict[str, Any] | None:
        """The body as a batch when it plainly is one, else None (Django says what is
        wrong with it, in its words)."""
        try:
            data = drf_json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
            return None
        return data if isinstance(data, dict) and fast_batch(data) is not None else None
