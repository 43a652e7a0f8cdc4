"""A fresh install, in a real browser, on the embedded run (uvicorn with its lifespan, no
REDIS_URL, an empty database): the home page answers before any deal is proven, says that
today's daily is being proven and how far the solver has got, and opens the day by itself
(one reload) once it is; the day's par is the line proven then, and a second player sees
the same par, and nobody any of the deal's hidden cards."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, close_connection, start_server, stop_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPEN_WITHIN_MS = 60_000  # a proof and a short improve phase, at a low priority, under test load


def fresh_embedded_env() -> dict[str, str]:
    return {
        "REDIS_URL": "",  # the embedded run: in-memory channel layer, its own beat
        "DAILY_VARIANTS": "astrocyte",
        "DAILY_DAYS_AHEAD": "1",
        "PRACTICE_VARIANTS": "spider1",
        "PRACTICE_POOL_SIZE": "0",
        # The opening budget is what today's first daily gets: big enough that the page has
        # seconds to show the proof's progress, small enough to open soon.
        "SOLVER_IMPROVE_NODES": "400000",
        "SOLVER_OPENING_IMPROVE_NODES": "150000",
        "SOLVER_NICENESS": "10",
    }


def today_of(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/api/v1/challenges/today/", timeout=10) as answer:
        return dict(json.load(answer))


def test_a_fresh_install_shows_the_proof_and_opens_the_day_by_itself(
    browser: Any, tmp_path: Path
) -> None:
    close_connection()
    server = start_server(tmp_path, fresh_embedded_env(), lifespan="on")
    try:
        first = today_of(server.url)
        assert first["challenges"] == []
        assert [entry["variant"] for entry in first["preparing"]] == ["astrocyte"]
        assert "being proven" in first["message"]

        page = browser.new_page(viewport=DESKTOP)
        loads: list[str] = []
        page.on("load", lambda loaded: loads.append(loaded.url))
        page.goto(f"{server.url}/")
        # The progress line, read in the one check that waits for it (the proof may end, and
        # the page reload, a moment later).
        progress = page.locator("#preparing li")
        expect(progress).to_contain_text(re.compile(r"Astrocyte.*(waiting|proving|proven)", re.S))

        play = page.get_by_role("link", name="Play: Astrocyte of")
        expect(play.first).to_be_visible(timeout=OPEN_WITHIN_MS)
        assert len(loads) == 2, f"page loads: {loads}"
        expect(page.locator("#preparing")).to_have_count(0)

        today = today_of(server.url)
        (challenge,) = today["challenges"]
        assert today["preparing"] == [] and today["message"] is None
        assert challenge["par"] and challenge["revealed"] is None
        # The par shown is the stored one; the hidden cards stay hidden.
        assert page.locator(".challenge .meta").inner_text().count(f"par {challenge['par']}") == 1
        assert all(card is None for card in challenge["state"]["stock"])
    finally:
        stop_server(server)
