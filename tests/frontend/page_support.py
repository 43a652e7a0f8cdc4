"""What the browser tests share beyond tests/frontend/helpers.py: their marks, a page opened
with what every page test watches (the responses and frames it received, ``Recorder``,
which the card-leak checks read, and its JavaScript errors), and a phone's browser."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.factories import PASSWORD
from tests.frontend.conftest import DESKTOP, PHONE, make_player
from tests.frontend.helpers import Recorder, open_play, sign_in

# The marks of a browser test: a browser, and a database the live server shares.
BROWSER_TEST = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# A phone's browser played with a finger (``browser.new_context`` options).
TOUCH_PHONE: dict[str, Any] = {"viewport": PHONE, "has_touch": True, "is_mobile": True}


def recorded_page(browser: Any, **context_options: Any) -> tuple[Any, Any, Recorder]:
    """A new context (``context_options``: viewport, reduced_motion…) and its page, with a
    recorder attached (the context and page untyped, as the ``browser`` fixture's are)."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    recorder = Recorder()
    recorder.attach(page)
    return context, page, recorder


def page_errors(page: Page) -> list[str]:
    """The page's uncaught JavaScript errors from now on (the list grows as they come)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def phone_context(browser: Any, storage_state: Any = None) -> Any:
    """A phone's browser (touch, twice the pixels, reduced motion), signed in as the
    ``storage_state`` of another context was."""
    return browser.new_context(
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        storage_state=storage_state,
        reduced_motion="reduce",
    )


def signed_in_at_play(
    browser: Any, base: str, name: str, challenge_id: int, **context_options: Any
) -> tuple[Any, Any]:
    """A new browser (a desktop unless ``context_options`` say otherwise) signed in as the
    player ``name`` on the challenge's play page, ready (the game not started)."""
    context = browser.new_context(**{"viewport": DESKTOP, **context_options})
    page = context.new_page()
    sign_in(page, base, name, f"/play/{challenge_id}/")
    open_play(page, base, challenge_id)
    return context, page


def new_player_at_play(
    browser: Any, base: str, name: str, challenge_id: int, **context_options: Any
) -> tuple[Any, Any]:
    """``signed_in_at_play`` for a player ``name`` made now."""
    make_player(name)
    return signed_in_at_play(browser, base, name, challenge_id, **context_options)


def signed_up_at_play(page: Any, base: str, name: str, challenge_id: int) -> None:
    """Sign up as ``name`` through the sign-up form, sent on to the challenge's play page,
    and wait until it is ready."""
    page.goto(f"{base}/signup/?next=/play/{challenge_id}/")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#auth-form button")
    page.wait_for_url(f"{base}/play/{challenge_id}/")
    open_play(page, base, challenge_id)
