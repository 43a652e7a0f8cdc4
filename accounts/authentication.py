"""Token authentication for API clients: DRF's, with its lookup as one hand-written join.

DRF's ``TokenAuthentication`` reads the token with ``select_related("user")`` through the
ORM on every request; building that query cost more CPU than running it, on the play API's
hottest path (docs/api.md). Same header, same answers, same errors; ``request.auth`` is
still the ``Token`` (logout deletes it).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


def _lookup_sql() -> str:
    quote = connection.ops.quote_name
    users = quote(get_user_model()._meta.db_table)
    tokens = quote(Token._meta.db_table)
    return (
        f"SELECT {users}.* FROM {users} JOIN {tokens} "
        f"ON {tokens}.{quote('user_id')} = {users}.{quote('id')} "
        f"WHERE {tokens}.{quote('key')} = %s"
    )


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, as DRF's, with a cheaper lookup."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        users = list(get_user_model().objects.raw(_lookup_sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = users[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token.from_db(connection.alias, ["key", "user_id"], [key, user.pk])
        token.user = user
        return user, token
