"""Accounts API: sign up, log in and out (session with CSRF), who am I, API tokens (a client
without a session signs up for one with a plain JSON post), and the password rules."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    get_default_password_validators,
    password_validators_help_texts,
)
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import token_expired, token_expires_at
from accounts.services import SignupError, token_for, user_signup, user_tokens_revoke
from accounts.signals import account_signed_in
from core.api_errors import DomainError, error_response
from core.throttles import AddressRateThrottle

TOKEN_PREFIX_CHARS = 6


class InvalidCredentialsError(DomainError):
    code = "invalid_credentials"
    http_status = status.HTTP_400_BAD_REQUEST


def _enforce_csrf(request: Request) -> None:
    """Session-creating posts need the CSRF token too (no login CSRF), even when anonymous.

    DRF checks CSRF only for requests its session authentication signed in.
    """
    SessionAuthentication().enforce_csrf(request)


class UserSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    date_joined = serializers.DateTimeField()


class CredentialsSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


def _signed_in(request: Request, user: Any, *, browser: bool) -> None:
    """Tell listeners (reviews: where accounts play from) who signed in by this request."""
    account_signed_in.send(sender=type(user), request=request._request, user=user, browser=browser)


def _user(user: Any) -> dict[str, Any]:
    return dict(UserSerializer(user).data)


def credentials_schema(operation_id: str, ok: int, refused: str, too_many: str) -> Any:
    """The schema of a CSRF-checked post of CredentialsSerializer (sign-up, log-in)."""
    return extend_schema(
        operation_id=operation_id,
        request=CredentialsSerializer,
        responses={
            ok: UserSerializer,
            400: error_response(refused),
            403: error_response("CSRF token missing or wrong."),
            429: error_response(too_many),
        },
    )


def checked_credentials(request: Request) -> dict[str, Any]:
    """The CSRF token checked, then the posted username and password (400 naming a field)."""
    _enforce_csrf(request)
    data = CredentialsSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class SignupApi(APIView):
    """Create an account and sign the session in (the CSRF token is required)."""

    throttle_classes = [AddressRateThrottle]
    throttle_scope = "signup"

    @credentials_schema(
        "auth_signup",
        201,
        "invalid, or signup_refused (details name the field)",
        "Too many sign-ups from this address.",
    )
    def post(self, request: Request) -> Response:
        user = user_signup(**checked_credentials(request))
        login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
        _signed_in(request, user, browser=True)
        return Response(_user(user), status=status.HTTP_201_CREATED)


class LoginApi(APIView):
    """Sign the session in (the CSRF token is required)."""

    throttle_classes = [AddressRateThrottle]
    throttle_scope = "login"

    @credentials_schema(
        "auth_login", 200, "invalid, or invalid_credentials", "Too many log-ins from this address."
    )
    def post(self, request: Request) -> Response:
        user = authenticate(request._request, **checked_credentials(request))
        if user is None:
            raise InvalidCredentialsError("Wrong username or password.")
        login(request._request, user)
        _signed_in(request, user, browser=True)
        return Response(_user(user))


class LogoutApi(APIView):
    """End the session; a token client's token is revoked."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="auth_logout",
        request=None,
        responses={
            204: None,
            401: error_response("Not signed in."),
            403: error_response("CSRF failure."),
        },
    )
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, Token):
            request.auth.delete()
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    """Who is signed in; also sets the CSRF cookie the browser sends back as X-CSRFToken."""

    class OutputSerializer(serializers.Serializer[Any]):
        authenticated = serializers.BooleanField()
        user = UserSerializer(allow_null=True)

        class Meta:
            ref_name = "Me"

    @extend_schema(operation_id="auth_me", responses={200: OutputSerializer})
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        if request.user.is_authenticated:
            return Response({"authenticated": True, "user": _user(request.user)})
        return Response({"authenticated": False, "user": None})


class TokenApi(APIView):
    """An API token for a client that does not keep a session (Authorization: Token <key>)."""

    throttle_classes = [AddressRateThrottle]
    throttle_scope = "login"
    authentication_classes: list[Any] = []

    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField()
        expires_at = serializers.DateTimeField(allow_null=True, help_text="null: never")
        user = UserSerializer()

        class Meta:
            ref_name = "AuthToken"

    @extend_schema(
        operation_id="auth_token",
        request=CredentialsSerializer,
        responses={
            200: OutputSerializer,
            400: error_response("invalid, or invalid_credentials"),
            429: error_response("Too many attempts from this address."),
        },
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise InvalidCredentialsError("Wrong username or password.")
        token = token_for(user)
        _signed_in(request, user, browser=False)
        return Response(
            {"token": token.key, "expires_at": token_expires_at(token.created), "user": _user(user)}
        )


class TokenSignupApi(APIView):
    """Create an account and get its API token, for a client that keeps no session: a JSON
    post with no session and so no CSRF token (the browser's sign-up, which signs a session
    in, is ``auth/signup/`` and needs one)."""

    throttle_classes = [AddressRateThrottle]
    throttle_scope = "signup"
    authentication_classes: list[Any] = []

    @extend_schema(
        operation_id="auth_token_signup",
        request=CredentialsSerializer,
        responses={
            201: TokenApi.OutputSerializer,
            400: error_response("invalid, or signup_refused (details name the field)"),
            429: error_response("Too many sign-ups from this address."),
        },
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_signup(**data.validated_data)
        token = token_for(user)
        _signed_in(request, user, browser=False)
        body = {
            "token": token.key,
            "expires_at": token_expires_at(token.created),
            "user": _user(user),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class PasswordRulesApi(APIView):
    """The rules a new password must pass (Django's validators, as configured), for the
    sign-up form to show as it checks them."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    class OutputSerializer(serializers.Serializer[Any]):
        rules = serializers.ListField(child=serializers.CharField())
        min_length = serializers.IntegerField(help_text="0 when no minimum is configured")

        class Meta:
            ref_name = "PasswordRules"

    @extend_schema(operation_id="auth_password_rules", responses={200: OutputSerializer})
    def get(self, request: Request) -> Response:
        return Response({"rules": password_validators_help_texts(), "min_length": _min_length()})


def _min_length() -> int:
    lengths = [
        int(getattr(validator, "min_length", 0))
        for validator in get_default_password_validators()
        if isinstance(validator, MinimumLengthValidator)
    ]
    return max(lengths, default=0)


class TokenRowSerializer(serializers.Serializer[Any]):
    prefix = serializers.CharField(help_text="The first characters of the key, to recognise it.")
    created = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True, help_text="null: never")
    expired = serializers.BooleanField()


class TokensApi(APIView):
    """The signed-in player's API tokens: list them, or revoke them all."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer[Any]):
        tokens = TokenRowSerializer(many=True)

        class Meta:
            ref_name = "AuthTokens"

    @extend_schema(
        operation_id="auth_tokens",
        responses={200: OutputSerializer, 401: error_response("Not signed in.")},
    )
    def get(self, request: Request) -> Response:
        rows = [
            {
                "prefix": token.key[:TOKEN_PREFIX_CHARS],
                "created": token.created,
                "expires_at": token_expires_at(token.created),
                "expired": token_expired(token.created),
            }
            for token in Token.objects.filter(user=cast(Any, request.user))
        ]
        return Response({"tokens": rows})

    @extend_schema(
        operation_id="auth_tokens_revoke",
        request=None,
        responses={
            204: None,
            401: error_response("Not signed in."),
            403: error_response("CSRF failure."),
        },
    )
    def delete(self, request: Request) -> Response:
        user_tokens_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


__all__ = ["LoginApi", "LogoutApi", "MeApi", "SignupApi", "SignupError", "TokenApi", "TokensApi"]
