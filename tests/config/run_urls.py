"""The project's URLs and, in front, one page and one API address that fail on purpose:
what a bug anywhere would answer."""

from typing import cast

from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path

from config.urls import handler400, handler403, handler404, handler500
from config.urls import urlpatterns as project

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


class DeliberateFailure(Exception):
    pass


def fail(request: HttpRequest) -> HttpResponse:
    raise DeliberateFailure("a bug, on purpose")


urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/test-failure/", fail),
    path("test-failure/", fail),
    *cast(list[URLPattern | URLResolver], project),
]
