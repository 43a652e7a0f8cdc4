"""API routes of this app, mounted under /api/v1/admin/ by config/urls.py."""

from django.urls import URLPattern, path

from reviews import api

urlpatterns: list[URLPattern] = [
    path("reviews/", api.ReviewListApi.as_view(), name="admin-reviews"),
]
