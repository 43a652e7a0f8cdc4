"""API routes of the reminders, mounted under /api/v1/reminders/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path

from notifications import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("", api.RemindersApi.as_view(), name="reminders"),
    path("subscriptions/", api.SubscriptionsApi.as_view(), name="reminders-subscriptions"),
]
