"""Writes for accounts: signing up, API tokens. Usernames are the public names on the
leaderboards."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework import status
from rest_framework.authtoken.models import Token

from core.api_errors import DomainError

USERNAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,30}$")
USERNAME_RULE = "3 to 30 characters: letters, digits, and . _ - only"


class SignupError(DomainError):
    code = "signup_refused"
    http_status = status.HTTP_400_BAD_REQUEST


def user_signup(*, username: str, password: str) -> Any:
    """A new player; the password must pass Django's validators (AUTH_PASSWORD_VALIDATORS)."""
    user_model = get_user_model()
    if not USERNAME_PATTERN.match(username):
        raise SignupError(f"A username is {USERNAME_RULE}.", details={"username": [USERNAME_RULE]})
    if user_model.objects.filter(username__iexact=username).exists():
        raise SignupError(
            "That username is taken.", details={"username": ["That username is taken."]}
        )
    try:
        validate_password(password, user=user_model(username=username))
    except DjangoValidationError as exc:
        raise SignupError(
            "The password is too weak: " + " ".join(exc.messages),
            details={"password": list(exc.messages)},
        ) from None
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(username=username, password=password)
    except IntegrityError:
        raise SignupError(
            "That username is taken.", details={"username": ["That username is taken."]}
        ) from None
    return user


def token_for(user: Any) -> Token:
    """The player's API token: the current one, or a new one if it has expired (or none)."""
    from accounts.authentication import token_expired

    with transaction.atomic():
        token, _ = Token.objects.select_for_update().get_or_create(user=user)
        if token_expired(token.created):
            token.delete()
            token = Token.objects.create(user=user)
    return token


def user_tokens_revoke(*, user: Any) -> int:
    """Revoke every API token of the player; how many there were."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted
