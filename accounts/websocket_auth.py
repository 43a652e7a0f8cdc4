"""Who a WebSocket is: the browser's session, or an API client's token; and whose origin.

- ``Authorization: Token <key>`` in the handshake (API clients; a browser page cannot set
  that header on a WebSocket) is read as the HTTP API reads it
  (``accounts.authentication.TokenAuthentication``): the socket's user is the token's; an
  unknown or expired token leaves it anonymous with ``scope["auth_error"]`` saying why
  (the play socket closes 4401 with it).
- Without it, the session cookie (Channels' ``AuthMiddlewareStack``).
- The Origin must be one of ``ALLOWED_HOSTS`` (Channels' ``AllowedHostsOriginValidator``):
  a page of another site cannot use a player's cookie. A handshake with a token and no
  Origin at all (a script, not a browser) is let through: it carries its own credentials.
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser
from rest_framework import exceptions

from accounts.authentication import TokenAuthentication

TOKEN_PREFIX = b"token "


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


def token_key(scope: dict[str, Any]) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, or None."""
    value = _header(scope, b"authorization")
    if value is None or not value.lower().startswith(TOKEN_PREFIX):
        return None
    return value[len(TOKEN_PREFIX) :].strip().decode("latin1")


@database_sync_to_async
def _token_user(key: str) -> tuple[Any, tuple[str, str] | None]:
    try:
        user, _ = TokenAuthentication().authenticate_credentials(key)
    except exceptions.AuthenticationFailed as error:
        codes = error.get_codes()
        return AnonymousUser(), (
            codes if isinstance(codes, str) else "authentication_failed",
            str(error.detail),
        )
    return user, None


class TokenAuthMiddleware:
    """The token's user for a handshake that carries one, else the session's (inner)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session = AuthMiddlewareStack(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = token_key(scope)
        if key is None:
            return await self.session(scope, receive, send)
        user, error = await _token_user(key)
        return await self.inner({**scope, "user": user, "auth_error": error}, receive, send)


class OriginOrTokenValidator:
    """The Origin checked against ALLOWED_HOSTS, except for a token handshake without one."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.checked = AllowedHostsOriginValidator(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if _header(scope, b"origin") is None and token_key(scope) is not None:
            return await self.inner(scope, receive, send)
        return await self.checked(scope, receive, send)


def websocket_stack(router: Any) -> Any:
    return OriginOrTokenValidator(TokenAuthMiddleware(router))
