"""API routes of this app, mounted under /api/v1/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path

from accounts import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/signup/", api.SignupApi.as_view(), name="auth-signup"),
    path("auth/login/", api.LoginApi.as_view(), name="auth-login"),
    path("auth/logout/", api.LogoutApi.as_view(), name="auth-logout"),
    path("auth/me/", api.MeApi.as_view(), name="auth-me"),
    path("auth/token/", api.TokenApi.as_view(), name="auth-token"),
    path("auth/token/signup/", api.TokenSignupApi.as_view(), name="auth-token-signup"),
    path("auth/password-rules/", api.PasswordRulesApi.as_view(), name="auth-password-rules"),
    path("auth/tokens/", api.TokensApi.as_view(), name="auth-tokens"),
]
