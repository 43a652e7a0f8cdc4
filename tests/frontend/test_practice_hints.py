"""Hints in practice at a player's pace: sixty asks in one game, each followed by the hinted
move, and never a word about throttling; the hints left are counted down near the end."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import PHONE, Server, make_player
from tests.frontend.helpers import practice_deal, sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

THROTTLE_WORDS = re.compile(r"thrott|too fast|too many|expected available", re.IGNORECASE)


def test_sixty_hints_asked_while_playing_never_show_a_throttle_message(
    asgi_server: Server, browser: Any, transactional_db: Any
) -> None:
    base = asgi_server.url
    practice_deal()
    make_player("pia")
    page = browser.new_context(viewport=PHONE).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page, base, "pia", "/practice/")
    page.wait_for_selector("#play[data-ready='true']")
    page.select_option("#variant", "spider1")
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")

    said = []
    for asked in range(60):
        page.click("#hint")
        expect(page.locator("#status")).to_contain_text("Hint:")
        expect(page.locator("#hint")).to_be_enabled()
        said.append(page.locator("#status").inner_text())
        action = page.evaluate("() => window.astrocyte.state().hint.action")
        page.evaluate("(action) => window.astrocyte.send([action])", action)
        expect(page.locator("#actions")).to_have_text(str(asked + 1))
    assert [text for text in said if THROTTLE_WORDS.search(text)] == []
    assert "left in this game" not in said[-1]  # 40 of the game's 100 hints are left
    assert errors == []
    page.context.close()
