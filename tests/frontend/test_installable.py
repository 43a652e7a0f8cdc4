"""The installable web app in Chromium: the manifest parses with no error and nothing stands
in the way of installing, the service worker controls the page, a repeat visit with the
network cut draws the kept page, a page never opened shows the offline page, and no API
answer is ever in the worker's cache (the server stays the only source of a position)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import PHONE, Server
from tests.frontend.helpers import chromium_with_a_profile
from tests.frontend.page_support import page_errors

pytestmark = pytest.mark.browser

CONTROLLER = "() => navigator.serviceWorker.controller?.scriptURL"

CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(request.url);
  }
  return urls;
}"""


@pytest.fixture
def profile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """Chromium with a profile on disk: a browser context of Playwright's own is incognito,
    where Chromium never offers to install (its one installability error, 'in-incognito')."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_with_a_profile(tmp_path / "profile", PHONE) as context:
        yield context


def test_the_manifest_is_served_as_a_web_app_manifest(asgi_server: Server) -> None:
    with urllib.request.urlopen(f"{asgi_server.url}/manifest.webmanifest", timeout=10) as answer:
        assert answer.headers["Content-Type"] == "application/manifest+json"
        manifest = json.load(answer)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    with urllib.request.urlopen(f"{asgi_server.url}/service-worker.js", timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("text/javascript")
        assert answer.headers["Cache-Control"] == "no-cache"


def test_installable_and_a_repeat_visit_draws_without_the_network(
    profile: Any, asgi_server: Server
) -> None:
    context = profile
    page = context.pages[0] if context.pages else context.new_page()
    errors = page_errors(page)
    page.goto(f"{asgi_server.url}/")
    page.wait_for_function(CONTROLLER)  # the worker took over the page it installed from
    assert page.evaluate(CONTROLLER) == f"{asgi_server.url}/service-worker.js"

    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{asgi_server.url}/manifest.webmanifest"
    assert manifest["errors"] == [], manifest["errors"]
    installability = cdp.send("Page.getInstallabilityErrors")
    assert installability["installabilityErrors"] == [], installability

    # The home page asked the API for today's deals: none of that is in any cache.
    page.goto(f"{asgi_server.url}/rules/")
    expect(page.locator("h1").first).to_be_visible()
    cached = page.evaluate(CACHED_URLS)
    assert f"{asgi_server.url}/rules/" in cached
    assert not [url for url in cached if "/api/" in url], cached

    assert errors == [], errors

    context.set_offline(True)
    page.goto(f"{asgi_server.url}/rules/")  # kept as last fetched: drawn from the cache
    expect(page.get_by_role("heading", name="How to play")).to_be_visible()
    expect(page.locator("header.site .brand")).to_have_text("Astrocyte Daily")

    page.goto(f"{asgi_server.url}/leagues/")  # never opened here: the offline page
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Playing needs the network")

    # An API request with the network cut fails: no stale answer comes from the worker.
    outcome = page.evaluate(
        """() => fetch("/api/v1/challenges/today/").then(() => "answered", () => "failed")"""
    )
    assert outcome == "failed"
    context.set_offline(False)
