"""API routes of this app, mounted under /api/v1/ by config/urls.py."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
