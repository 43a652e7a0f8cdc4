"""The installable web app: its manifest, its service worker and the offline page.

The service worker (templates/frontend/service-worker.js) keeps the static shell in the
browser's cache: the pages' HTML as last fetched and the files under ``static/frontend/``,
so that a repeat visit draws without the network. It never keeps an API answer or a
WebSocket: the server stays the only source of a position. It is served from the site's
root so that its scope is the whole site.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.apps import apps
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

THEME_COLOURS = {"dark": "#072a20", "light": "#cddccf"}  # site.css' --felt-dark of each theme
BACKGROUND = "#0b3d2e"  # the dark theme's --felt: the splash screen behind the icon
# Paths the worker never answers from its cache (nor stores): the server's answers.
NETWORK_ONLY = ["/api/", "/admin/", "/metrics/", "/health/", "/ws/"]


def shell_files() -> list[str]:
    """The web client's own static files, by the names the static storage gives them."""
    root = Path(apps.get_app_config("frontend").path) / "static"
    names = sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())
    return [staticfiles_storage.url(name) for name in names]


def shell_version(files: list[str]) -> str:
    """Changes whenever a shell file or the worker changes: a new cache, the old one dropped.
    (Hashed names change with the file in production; in development the bytes count.)"""
    digest = hashlib.sha256()
    app = Path(apps.get_app_config("frontend").path)
    for path in sorted((app / "static").rglob("*")):
        if path.is_file():
            digest.update(path.read_bytes())
    digest.update((app / "templates" / "frontend" / "service-worker.js").read_bytes())
    digest.update("\n".join(files).encode())
    return digest.hexdigest()[:16]


@require_GET
@cache_control(max_age=3600, public=True)
def manifest(request: HttpRequest) -> HttpResponse:
    icons = [
        {"src": static("frontend/icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("frontend/icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("frontend/icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    body = {
        "id": "/",
        "name": "Astrocyte Daily",
        "short_name": "Astrocyte",
        "description": "A new patience deal every day: Astrocyte and Spider, one board for all.",
        "start_url": reverse("frontend:index"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME_COLOURS["dark"],
        "icons": icons,
    }
    return HttpResponse(json.dumps(body, indent=1), content_type="application/manifest+json")


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    files = shell_files()
    context = {
        "cache_name": f"astrocyte-shell-{shell_version(files)}",
        "shell": json.dumps([reverse("frontend:index"), *files]),
        "offline": json.dumps(reverse("frontend:offline")),
        "static_prefix": json.dumps(staticfiles_storage.url("frontend/")),
        "network_only": json.dumps(NETWORK_ONLY),
    }
    answer = render(request, "frontend/service-worker.js", context, content_type="text/javascript")
    # Always checked with the server: a new worker (a new shell) is found at the next visit.
    answer["Cache-Control"] = "no-cache"
    return answer


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/offline.html", {"page": "offline"})
