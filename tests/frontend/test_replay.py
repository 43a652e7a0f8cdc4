"""Replays stepped through on the board, in a real browser: every position drawn is the
server's (GET /attempts/<id>/replay/?step=k, /challenges/<id>/solution/?step=k)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.frontend.conftest import DESKTOP, Daily, Server
from tests.frontend.helpers import (
    card_label,
    close_the_day,
    finished_games,
    no_card_in_page_source,
    sign_in,
)
from tests.frontend.page_support import BROWSER_TEST, page_errors, recorded_page

pytestmark = BROWSER_TEST


CLOCK_START = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)


def api_get(page: Page, path: str) -> dict[str, Any]:
    """What the server answers the page's own session (not a cached step)."""
    body = page.evaluate(
        "async (path) => { const r = await fetch('/api/v1/' + path); return await r.text(); }",
        path,
    )
    result: dict[str, Any] = json.loads(body)
    return result


def board_matches(board: Locator, state: dict[str, Any]) -> None:
    """Every column on the board holds the server's cards: face-down ones shaded when the
    server has revealed them, a card's back where it sent null."""
    for i, (column, down) in enumerate(zip(state["tableau"], state["face_down"], strict=True)):
        cards = board.locator(f".column[data-pile='t{i + 1}'] .card")
        expect(cards).to_have_count(len(column))
        labels = cards.evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")
        assert [label.split(",")[0] for label in labels] == [card_label(c) for c in column]
        shaded = board.locator(f".column[data-pile='t{i + 1}'] .card.was-down")
        expect(shaded).to_have_count(sum(1 for card in column[:down] if card is not None))
    runs = board.locator(".foundation[aria-label*='complete run']")
    expect(runs).to_have_count(sum(1 for f in state["foundations"] if len(f) == 13))


def at_step(stepper: Locator, step: int, steps: int) -> None:
    expect(stepper).to_have_attribute("data-step", str(step))
    expect(stepper.locator(".step-count")).to_have_text(f"Step {step} of {steps}")


def test_a_finished_game_steps_through_the_servers_positions(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    ids = finished_games(daily, {"winner": None, "quitter": 6})
    steps = len(daily.solution)
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    errors = page_errors(page)

    # The owner, at once (the day is still open): step 0 is the deal as they saw it (hidden
    # cards stay hidden until the day is over, for everyone at once), then Next three times.
    attempt = ids["winner"]
    sign_in(page, base, "winner", f"/replay/{attempt}/")
    page.wait_for_selector("#replay[data-ready='true']")
    stepper = page.locator("#stepper .stepper")
    board = stepper.locator(".board")
    at_step(stepper, 0, steps)
    expect(stepper.locator("[data-step-button='prev']")).to_be_disabled()
    expect(page.locator("#deal-title")).to_have_text("The deal as you saw it")
    expect(page.locator("#deal-board .card.was-down")).to_have_count(0)
    board_matches(board, api_get(page, f"attempts/{attempt}/replay/?step=0")["state"])
    for _ in range(3):
        stepper.locator("[data-step-button='next']").click()
    at_step(stepper, 3, steps)
    answer = api_get(page, f"attempts/{attempt}/replay/?step=3")
    assert answer["action"] == daily.solution[2]
    expect(stepper.locator(".step-action")).to_contain_text(f"3. {daily.solution[2]}")
    expect(page.locator("#moves li.current")).to_have_attribute("data-step", "3")
    board_matches(board, answer["state"])

    # The keyboard: → and ← on the focused board; a step seen before is not asked again.
    stepper.focus()
    page.keyboard.press("ArrowRight")
    at_step(stepper, 4, steps)
    board_matches(board, api_get(page, f"attempts/{attempt}/replay/?step=4")["state"])
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at_step(stepper, 2, steps)
    board_matches(board, api_get(page, f"attempts/{attempt}/replay/?step=2")["state"])
    asked = [url for url, _, _ in recorder.responses if f"/attempts/{attempt}/replay/" in url]
    page_asks = [url for url in asked if url.endswith("step=3")]
    assert len(page_asks) == 2  # the page once, the test's own check once

    # Last: the final position, the same as the attempt's own (won, 8 runs home).
    stepper.locator("[data-step-button='last']").click()
    at_step(stepper, steps, steps)
    expect(stepper.locator("[data-step-button='next']")).to_be_disabled()
    final = api_get(page, f"attempts/{attempt}/")
    last = api_get(page, f"attempts/{attempt}/replay/?step={steps}")
    assert last["state"]["tableau"] == final["state"]["tableau"]
    assert last["state"]["foundations"] == final["state"]["foundations"]
    board_matches(board, last["state"])
    expect(board.locator(".foundation[aria-label*='complete run']")).to_have_count(8)

    # Play from the start runs by itself; Pause stops it. The page's timers run on a clock
    # the test moves (stopped otherwise), so "it stopped" does not rest on a wait.
    stepper.locator("[data-step-button='first']").click()
    at_step(stepper, 0, steps)
    page.clock.install(time=CLOCK_START)
    page.clock.pause_at(CLOCK_START + dt.timedelta(seconds=1))
    stepper.locator("[data-step-button='play']").click()
    expect(stepper.locator("[data-step-button='play']")).to_have_text("❙❙ Pause")
    counter = stepper.locator(".step-count")  # set at once by each step played
    for _ in range(100):
        if counter.inner_text() not in (f"Step {k} of {steps}" for k in (0, 1)):
            break
        page.clock.run_for(100)
    stepper.locator("[data-step-button='play']").click()
    expect(stepper.locator("[data-step-button='play']")).to_have_text("▶ Play")
    paused = counter.inner_text()
    assert paused == f"Step 2 of {steps}"
    page.clock.run_for(60_000)  # a minute of the page's time: no step more
    assert counter.inner_text() == paused

    # Before the day is over nothing the browser got names the seed.
    for url, _, body in recorder.responses:
        if "/api/v1/" in url:
            assert '"seed": "' not in body and '"nonce": "' not in body, url

    # After the day: a signed-out visitor steps through the solution and the quitter's game.
    close_the_day(daily)
    visitor = browser.new_context(viewport=DESKTOP).new_page()
    visitor.on("pageerror", lambda error: errors.append(str(error)))
    visitor.goto(f"{base}/challenges/{daily.challenge_id}/replays/")
    visitor.wait_for_selector("#replay[data-ready='true']")
    solution = visitor.locator("#solution-stepper .stepper")
    at_step(solution, 0, steps)
    solution.locator("[data-step-button='next']").click()
    at_step(solution, 1, steps)
    answer = api_get(visitor, f"challenges/{daily.challenge_id}/solution/?step=1")
    board_matches(solution.locator(".board"), answer["state"])
    solution.locator("[data-step-button='last']").click()
    at_step(solution, steps, steps)
    expect(solution.locator(".foundation[aria-label*='complete run']")).to_have_count(8)

    game = visitor.locator(f"#game-{ids['quitter']}")
    game.locator("summary").click()
    quitter = game.locator(".stepper")
    at_step(quitter, 0, 6)
    quitter.locator("[data-step-button='last']").click()
    at_step(quitter, 6, 6)
    answer = api_get(visitor, f"attempts/{ids['quitter']}/replay/?step=6")
    assert answer["action"] == daily.solution[5]
    board_matches(quitter.locator(".board"), answer["state"])

    no_card_in_page_source(recorder)
    assert errors == []
    visitor.context.close()
    context.close()
