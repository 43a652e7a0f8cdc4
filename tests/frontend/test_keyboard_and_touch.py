"""The play page for everyone: a whole daily won with the keyboard alone, each move and
revealed card said in the live region (and never a card the player has not turned up),
and moves played on a phone by tapping and by dragging with real touch events."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.frontend.a11y import assert_accessible
from tests.frontend.conftest import DESKTOP, Daily, Server, make_player
from tests.frontend.helpers import (
    MOVE,
    RANKS,
    SUITS,
    action_count,
    assert_no_hidden_cards,
    attempt,
    destination,
    open_play,
    sign_in,
    source_card,
    wait_count,
)
from tests.frontend.page_support import BROWSER_TEST, TOUCH_PHONE, new_player_at_play, recorded_page

pytestmark = BROWSER_TEST

CARD_NAME = re.compile(
    r"\b(Ace|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King) of "
    r"(spades|hearts|diamonds|clubs)\b"
)


def focused(page: Any) -> str | None:
    focus: str | None = page.evaluate("() => document.activeElement.dataset.focus || null")
    return focus


def press_until(page: Any, key: str, reached: Any, limit: int = 40) -> None:
    for _ in range(limit):
        if reached():
            return
        page.keyboard.press(key)
    assert reached(), f"{key} x{limit} did not get there"


def go_to_column(page: Any, column: int, top: bool) -> None:
    """Arrow keys only: to column ``column``'s top card (``top``), or anywhere in it."""
    for _ in range(40):
        key = focused(page)
        assert key, "the focus left the board"
        pile, index = key.split(":")
        if pile[0] != "t":
            page.keyboard.press("ArrowDown")
            continue
        here = int(pile[1:])
        if here != column:
            page.keyboard.press("ArrowRight" if column > here else "ArrowLeft")
            continue
        cards = page.locator(f"#board .column[data-pile='t{column}'] .card").count()
        if top and index and int(index) < cards - 1:
            page.keyboard.press("ArrowDown")
            continue
        return
    raise AssertionError(f"could not reach column {column} by arrow keys")


def keyboard_only(page: Any, action: str) -> None:
    """One action with key presses alone: D deals, U undoes; a move is arrows to the source,
    ↑ to take the run, Enter, arrows to the destination, Enter."""
    before = action_count(page)
    if action in ("deal", "undo"):
        page.keyboard.press(action[0])
    else:
        match = MOVE.match(action)
        assert match and match.group(1)[0] == match.group(2)[0] == "t", action
        n = int(match.group(3) or 1)
        go_to_column(page, int(match.group(1)[1:]), top=True)
        for _ in range(n - 1):
            page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        expect(page.locator("#status")).to_contain_text("Picked up")
        go_to_column(page, int(match.group(2)[1:]), top=False)
        page.keyboard.press("Enter")
    wait_count(page, before + 1)


def card_names(state: dict[str, Any]) -> set[str]:
    """The names of every card a view shows (face up: hidden ones are null)."""
    cards = [card for column in state["tableau"] for card in column]
    cards += [card for pile in state["foundations"] for card in pile] + list(state["cells"])
    return {f"{RANKS[c[0]]} of {SUITS[c[1]][0]}" for c in cards if c}


def test_a_daily_is_won_with_the_keyboard_alone_and_every_move_is_announced(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    make_player("kim")
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    sign_in(page, asgi_server.url, "kim", f"/play/{daily.challenge_id}/")
    open_play(page, asgi_server.url, daily.challenge_id)

    # Tab to the Start button, Enter: the focus goes to the board.
    press_until(page, "Tab", lambda: page.evaluate("() => document.activeElement.id") == "start")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("clock is running")
    assert focused(page), "after Start the focus is on the board"

    log = page.locator("#announcer")
    expect(log).to_have_attribute("aria-live", "polite")
    announced = []
    for i, action in enumerate(daily.solution):
        seen_before = card_names(attempt(page)["state"])
        keyboard_only(page, action)
        said = log.locator("p").last.inner_text()
        announced.append(said)
        seen_after = card_names(attempt(page)["state"])
        for name in CARD_NAME.finditer(said):
            assert name.group(0) in seen_before | seen_after, (i, action, said)
        if action == "deal":
            assert said.startswith("Dealt a card onto every column. Dealt "), said
        else:
            assert said.startswith("Moved "), said
    expect(page.locator("#result")).to_contain_text("You won!")
    assert announced[-1].endswith("You won!")
    # Each batch said once; cards turned face up by moves were said too.
    assert len(announced) == len(daily.solution)
    assert any("Turned up" in said for said in announced)
    assert_accessible(page, "the play page, won")
    assert_no_hidden_cards(recorder)
    context.close()


def centre(box: dict[str, float], dy: float = 0.0) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 12 + dy)


def touch_drag(
    page: Any, cdp: Any, start_at: tuple[float, float], end_at: tuple[float, float]
) -> None:
    """A finger put down, moved in steps and lifted: real touch input (CDP), no mouse."""
    (x0, y0), (x1, y1) = start_at, end_at
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for step in range(1, 11):
        x, y = x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_on_a_phone_moves_are_played_by_tapping_and_by_dragging_with_a_finger(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context, page = new_player_at_play(
        browser, asgi_server.url, "tia", daily.challenge_id, **TOUCH_PHONE
    )
    page.evaluate(
        """() => { window.pointerKinds = [];
        addEventListener("pointerdown", (e) => window.pointerKinds.push(e.pointerType), true); }"""
    )
    page.locator("#start").tap()
    expect(page.locator("#status")).to_contain_text("clock is running")
    solution = daily.solution

    # Taps: the card, then its place.
    for action in solution[:3]:
        before = action_count(page)
        page.touchscreen.tap(*centre(source_card(page, action).bounding_box()))
        expect(page.locator("#status")).to_contain_text("Picked up")
        page.touchscreen.tap(*centre(destination(page, action).bounding_box()))
        wait_count(page, before + 1)
    # Drags: a finger on the card (or the run's first card), moved onto the destination.
    cdp = context.new_cdp_session(page)
    for action in solution[3:6]:
        before = action_count(page)
        card = source_card(page, action).bounding_box()
        target = destination(page, action).bounding_box()
        touch_drag(page, cdp, (card["x"] + 6, card["y"] + 6), centre(target, 8))
        wait_count(page, before + 1)
    kinds = set(page.evaluate("() => window.pointerKinds"))
    assert kinds == {"touch"}, kinds
    assert action_count(page) == 6 and attempt(page)["offset"] == 6
    assert_accessible(page, "the play page on a phone")
    context.close()
