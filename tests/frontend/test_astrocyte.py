"""Astrocyte (8 columns, 4 cells, 8 foundations) in a real browser: the layout the player
sees, the first moves of the solver's solution by clicks (one into a cell), and the
screenshots of the board."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, PHONE, Server, make_daily
from tests.frontend.helpers import (
    assert_no_hidden_cards,
    attempt,
    card_label,
    click_action,
    open_play,
    start,
)
from tests.frontend.page_support import (
    BROWSER_TEST,
    page_errors,
    phone_context,
    recorded_page,
    signed_up_at_play,
)

pytestmark = BROWSER_TEST


def assert_board_is(page: Any, state: dict[str, Any]) -> None:
    """What the page draws is the server's state: every column, cell and foundation."""
    board = page.locator("#board")
    for i, (cards, down) in enumerate(zip(state["tableau"], state["face_down"], strict=True)):
        column = board.locator(f".column[data-pile='t{i + 1}']")
        expect(column.locator(".card.back")).to_have_count(down)
        up = column.locator(".card.up")
        expect(up).to_have_count(len(cards) - down)
        for j, card in enumerate(cards[down:]):
            expect(up.nth(j)).to_have_attribute("aria-label", re.compile(f"^{card_label(card)},"))
    for i, card in enumerate(state["cells"]):
        text = card_label(card) if card else "empty"
        expect(board.locator(f".cell[data-pile='c{i + 1}']")).to_have_attribute(
            "aria-label", f"Cell {i + 1}: {text}"
        )
    for i, cards in enumerate(state["foundations"]):
        label = board.locator(f".foundation[data-pile='f{i + 1}']")
        if cards:
            expect(label).to_have_attribute(
                "aria-label", re.compile(f"^Foundation {i + 1}: {len(cards)} cards")
            )
        else:
            expect(label).to_have_attribute("aria-label", f"Foundation {i + 1}: empty")


def server_state(page: Any, base: str) -> dict[str, Any]:
    """The attempt as the server has it now (a fresh GET with the page's session)."""
    attempt_id = attempt(page)["id"]
    response = page.request.get(f"{base}/api/v1/attempts/{attempt_id}/")
    assert response.ok, response.status
    return response.json()


def test_astrocyte_layout_first_moves_with_a_cell_and_screenshots(
    asgi_server: Server, browser: Any, transactional_db: Any, screenshots_dir: Path
) -> None:
    daily = make_daily(variant="astrocyte", seed=4)
    base = asgi_server.url
    context, page, recorder = recorded_page(browser, viewport=DESKTOP, reduced_motion="reduce")
    errors = page_errors(page)

    signed_up_at_play(page, base, "ana", daily.challenge_id)

    # The layout: 8 columns of 7 backs and 1 face-up card, 4 empty cells, 8 empty
    # foundations, the stock with 5 deals.
    board = page.locator("#board")
    expect(board).to_have_class(re.compile(r"\bvariant-astrocyte\b"))
    expect(board.locator(".column")).to_have_count(8)
    for i in range(1, 9):
        column = board.locator(f".column[data-pile='t{i}']")
        expect(column.locator(".card.back")).to_have_count(7)
        expect(column.locator(".card.up")).to_have_count(1)
        expect(column).to_have_attribute("aria-label", f"Column {i}: 8 cards, 7 face down")
    expect(board.locator(".cell")).to_have_count(4)
    expect(board.locator(".cell .card")).to_have_count(0)
    for i in range(1, 5):
        expect(board.locator(f".cell[data-pile='c{i}']")).to_have_attribute(
            "aria-label", f"Cell {i}: empty"
        )
    expect(board.locator(".foundation")).to_have_count(8)
    expect(board.locator(".foundation .card")).to_have_count(0)
    expect(board.locator(".stock")).to_have_attribute("aria-label", re.compile("^Stock: 5 deals"))
    # Every pile is on the screen, side by side, none hidden under another.
    boxes = [
        board.locator(f".pile[data-pile='{p}']").bounding_box()
        for p in ["stock", *[f"c{i}" for i in range(1, 5)], *[f"f{i}" for i in range(1, 9)]]
    ]
    columns = [board.locator(f".column[data-pile='t{i}']").bounding_box() for i in range(1, 9)]
    for row in (boxes, columns):
        assert all(box and box["width"] > 0 for box in row)
        xs = [box["x"] for box in row]
        assert xs == sorted(xs) and len(set(xs)) == len(xs), xs
        assert max(box["x"] + box["width"] for box in row) <= DESKTOP["width"]

    # The cells and the foundations are two groups: a gap between them.
    step = boxes[4]["x"] - boxes[3]["x"]
    assert boxes[5]["x"] - boxes[4]["x"] > 1.5 * step, (boxes[3:6], step)

    start(page)
    assert attempt(page)["action_count"] == 0
    assert_board_is(page, server_state(page, base)["state"])

    # The first moves of the solution by clicks, at least up to the first move into a cell.
    solution = daily.solution
    to_cell = next((i for i, a in enumerate(solution) if re.match(r"^t\d+-c\d+$", a)), None)
    count = max(6, (to_cell + 1) if to_cell is not None and to_cell < 30 else 0)
    moves = solution[:count]
    played = 0
    for action in moves:
        click_action(page, action)
        played += 1
        server = server_state(page, base)
        assert server["action_count"] == played
        assert_board_is(page, server["state"])
    if to_cell is not None and to_cell < 30:
        dst = solution[to_cell].split("-")[1]
        assert any(server["state"]["cells"]), (solution[:count], dst)

    # The board after those moves (a card in a cell), on a desktop and on a phone.
    page.screenshot(path=str(screenshots_dir / "astrocyte-desktop.png"))
    state = context.storage_state()
    assert_no_hidden_cards(recorder)
    assert errors == []
    context.close()

    phone = phone_context(browser, state)
    page = phone.new_page()
    open_play(page, base, daily.challenge_id)
    expect(page.locator("#actions")).to_have_text(str(played))
    assert_board_is(page, server_state(page, base)["state"])
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    page.screenshot(path=str(screenshots_dir / "astrocyte-phone.png"), full_page=True)
    phone.close()
    assert (screenshots_dir / "astrocyte-desktop.png").stat().st_size > 10_000
    assert (screenshots_dir / "astrocyte-phone.png").stat().st_size > 10_000
