"""Token authentication for API clients: DRF's, with its lookup as one hand-written join.

DRF's ``TokenAuthentication`` reads the token with ``select_related("user")`` through the
ORM on every request; building that query cost more CPU than running it, on the play API's
hottest path (docs/api.md). Same header, same answers, same errors; ``request.auth`` is
still the ``Token`` (logout deletes it). A token older than ``API_TOKEN_DAYS`` is refused
(401 ``token_expired``).
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from core.row_reader import RowReader


@functools.cache
def _reader() -> tuple[RowReader, list[str], str]:
    """The user's columns then the token's ``created``, the user's field names and the
    statement (made once a process). Every column goes through the ORM's converters, so
    ``created`` is an aware datetime on SQLite as on PostgreSQL."""
    user_model = get_user_model()
    names = [field.attname for field in user_model._meta.concrete_fields]
    reader = RowReader([*((user_model, name) for name in names), (Token, "created")])
    quote = connection.ops.quote_name
    aliases: dict[type[models.Model], str] = {user_model: "u", Token: "t"}
    sql = (
        f"SELECT {reader.sql_columns(aliases)} "
        f"FROM {quote(user_model._meta.db_table)} u JOIN {quote(Token._meta.db_table)} t "
        f"ON t.{quote('user_id')} = u.{quote('id')} WHERE t.{quote('key')} = %s"
    )
    return reader, names, sql


def token_expires_at(created: dt.datetime) -> dt.datetime | None:
    """When a token made at ``created`` stops working (None: never, API_TOKEN_DAYS = 0)."""
    days = settings.API_TOKEN_DAYS
    return created + dt.timedelta(days=days) if days > 0 else None


def token_expired(created: dt.datetime) -> bool:
    expires_at = token_expires_at(created)
    return expires_at is not None and expires_at <= timezone.now()


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, as DRF's, with a cheaper lookup."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        reader, names, sql = _reader()
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        *user_values, created = reader.convert(row)
        if token_expired(created):
            raise exceptions.AuthenticationFailed(
                "The token has expired: ask for a new one (auth/token/).", code="token_expired"
            )
        user = get_user_model().from_db(connection.alias, names, user_values)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token.from_db(connection.alias, ["key", "user_id"], [key, user.pk])
        token.user = user
        return user, token
