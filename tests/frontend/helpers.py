"""What the browser tests share: signing in, playing an action the way a player does, and
checking everything the browser received for hidden cards."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Response, ViewportSize, WebSocket, expect

from tests.chromium import CHROMIUM_ARGS, chromium_path
from tests.frontend.conftest import PASSWORD, Daily, close_connection, make_player
from tests.games.conftest import QUICK_VARIANT
from tests.shifted_clock import SHIFT_VARIABLE

CARD_IN_JSON = re.compile(r'"[A2-9TJQK][SHDC]"')
RANKS = {"A": "Ace", "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six",
         "7": "Seven", "8": "Eight", "9": "Nine", "T": "Ten", "J": "Jack", "Q": "Queen",
         "K": "King"}  # fmt: skip
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}
MOVE = re.compile(r"^([tcf]\d+)-([tcf]\d+)(?::(\d+))?$")


def card_label(card: str | None) -> str:
    """How the board names a card: what it shows, then its name ("10♥ Ten of hearts"); a
    hidden one (null in a view) is a card's back."""
    if not card:
        return "Face-down card"
    name, symbol = SUITS[card[1]]
    shown = "10" if card[0] == "T" else card[0]
    return f"{shown}{symbol} {RANKS[card[0]]} of {name}"


@dataclass
class Recorder:
    """Every HTTP response body and WebSocket frame the page received."""

    responses: list[tuple[str, int, str]] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    play_frames: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("response", self._response)
        page.on("websocket", self._websocket)

    def _response(self, response: Response) -> None:
        try:
            body = response.text()
        except Exception:  # a redirect or an aborted request has no body
            body = ""
        self.responses.append((response.url, response.status, body))

    def _websocket(self, socket: WebSocket) -> None:
        # The play socket answers the player as the HTTP API does: its frames are checked
        # as API answers are; every other socket (live boards, rooms) carries no card.
        frames = self.play_frames if "/play/" in socket.url else self.frames
        socket.on("framereceived", lambda payload: frames.append(str(payload)))


def hidden_card_problems(value: Any, path: str = "$", public: bool = False) -> list[str]:
    """Where a JSON value shows a card the player has not seen.

    A state (an object with tableau, face_down and stock) must have null for every
    face-down and every stock card, and no seed, nonce or solution may appear, unless the
    server says the deal is public: an object with ``deal_revealed`` or ``cards_revealed``
    true, or the ``revealed`` object of a challenge whose day is over. That the server says
    so only when the day is over is checked by the API tests (tests/games/test_fair_play.py).
    """
    problems: list[str] = []
    if isinstance(value, dict):
        public = (
            public
            or value.get("deal_revealed") is True
            or value.get("cards_revealed") is True
            or path.endswith(".revealed")
        )
        if {"tableau", "face_down", "stock"} <= value.keys() and not public:
            for i, (column, down) in enumerate(
                zip(value["tableau"], value["face_down"], strict=True)
            ):
                if any(card is not None for card in column[:down]):
                    problems.append(f"{path}.tableau[{i}] shows a face-down card")
            if any(card is not None for card in value["stock"]):
                problems.append(f"{path}.stock shows a stock card")
        for key, item in value.items():
            if key in ("seed", "nonce", "solution") and item and not public:
                problems.append(f"{path}.{key} is given away")
            problems += hidden_card_problems(item, f"{path}.{key}", public)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            problems += hidden_card_problems(item, f"{path}[{i}]", public)
    return problems


def page_sources(recorder: Recorder) -> list[str]:
    """The HTML of every page the browser loaded, as the server sent it."""
    return [body for _, _, body in recorder.responses if body.lstrip().startswith("<!doctype")]


def assert_no_hidden_cards(recorder: Recorder) -> None:
    sources = page_sources(recorder)
    assert sources
    for source in sources:
        assert '"tableau"' not in source and '"stock"' not in source
        assert not CARD_IN_JSON.search(source), "a page embeds a card"
    checked = 0
    for url, status, body in recorder.responses:
        if "/api/" not in url or not body.startswith(("{", "[")):
            continue
        checked += 1
        assert hidden_card_problems(json.loads(body)) == [], (url, status)
    assert checked > 0
    for frame in recorder.frames:
        assert not CARD_IN_JSON.search(frame), f"a live message carries a card: {frame[:200]}"
    for frame in recorder.play_frames:
        assert hidden_card_problems(json.loads(frame)) == [], frame[:200]


def sign_in(page: Page, base: str, username: str, next_url: str) -> None:
    page.goto(f"{base}/login/?next={next_url}")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#auth-form button")
    page.wait_for_url(f"{base}{next_url}")


def open_play(page: Page, base: str, challenge_id: int) -> None:
    if not page.url.endswith(f"/play/{challenge_id}/"):
        page.goto(f"{base}/play/{challenge_id}/")
    page.wait_for_selector("#play[data-ready='true']")


def start(page: Page) -> None:
    page.click("#start")
    expect(page.locator("#status")).to_contain_text("clock is running")


def attempt(page: Page) -> dict[str, Any]:
    return page.evaluate("() => window.astrocyte.state().attempt")


def action_count(page: Page) -> int:
    return int(page.inner_text("#actions"))


def board_labels(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        "#board [aria-label]", "nodes => nodes.map(n => n.getAttribute('aria-label'))"
    )


def source_card(page: Page, action: str) -> Any:
    """What a player takes hold of for ``action``: the n-th card from the top of a column
    (tK-…:n), or the pile itself for a cell or a foundation."""
    match = MOVE.match(action)
    assert match, action
    src, n = match.group(1), int(match.group(3) or 1)
    if src[0] != "t":
        return page.locator(f"#board .pile[data-pile='{src}']")
    column = page.locator(f"#board .column[data-pile='{src}'] .card")
    return column.nth(column.count() - n)


def destination(page: Page, action: str) -> Any:
    """The pile ``action`` puts its cards on: a column, a cell or a foundation."""
    match = MOVE.match(action)
    assert match, action
    return page.locator(f"#board .pile[data-pile='{match.group(2)}']")


def wait_count(page: Page, count: int) -> None:
    expect(page.locator("#actions")).to_have_text(str(count))


def click_action(page: Page, action: str) -> None:
    """Play one action with the mouse: the Deal button, or click a card then its place."""
    before = action_count(page)
    if action == "deal":
        page.click("#deal")
    elif action == "undo":
        page.click("#undo")
    else:
        source_card(page, action).click(position={"x": 8, "y": 8})
        expect(page.locator("#status")).to_contain_text("Picked up")
        destination(page, action).click(position={"x": 8, "y": 8})
    wait_count(page, before + 1)


def drag_action(page: Page, action: str) -> None:
    """Play one action by dragging the card (or run) onto its destination column."""
    before = action_count(page)
    card = source_card(page, action).bounding_box()
    target = destination(page, action).bounding_box()
    assert card and target
    page.mouse.move(card["x"] + 10, card["y"] + 10)
    page.mouse.down()
    page.mouse.move(card["x"] + 30, card["y"] + 30, steps=4)
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 20, steps=8)
    page.mouse.up()
    wait_count(page, before + 1)


def hook_action(page: Page, action: str) -> None:
    """Play one action through the page's own client code (the same send() a click uses)."""
    assert page.evaluate("a => window.astrocyte.send([a])", action) is True, action


def fits_the_width(page: Page) -> None:
    """The page does not scroll sideways: nothing is wider than the screen."""
    overflow = page.evaluate(
        "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    if overflow <= 1:
        return
    # Name the elements that reach past the right edge, so a failure says what to fix.
    culprits = page.evaluate(
        """() => {
            const width = document.scrollingElement.clientWidth;
            const label = (element) => element.tagName.toLowerCase()
                + (element.id ? '#' + element.id : '')
                + [...element.classList].map((name) => '.' + name).join('');
            const clipped = (element) => {
                for (let up = element.parentElement; up && up !== document.body;
                     up = up.parentElement) {
                    if (getComputedStyle(up).overflowX !== 'visible') return true;
                }
                return false;
            };
            return [...document.body.querySelectorAll('*')]
                .filter((element) => element.getBoundingClientRect().right > width + 1)
                .filter((element) => !clipped(element))
                .filter((element) => !element.parentElement
                    || element.parentElement.getBoundingClientRect().right <= width + 1)
                .slice(0, 5)
                .map((element) => label(element) + ' ends at '
                    + Math.round(element.getBoundingClientRect().right) + 'px');
        }"""
    )
    raise AssertionError(
        f"{page.url} scrolls sideways by {overflow}px: {', '.join(culprits) or 'no element'}"
    )


# --- games and days the browser tests set up -------------------------------------------


def finished_games(daily: Daily, plan: dict[str, int | None]) -> dict[str, int]:
    """For each player, a ranked attempt at the daily: None plays the whole solution (a
    win), a number plays that many of its actions and resigns. Returns the attempt ids."""
    from games.services.attempts import (
        attempt_push_actions,
        attempt_resign,
        attempt_start_ranked,
    )

    ids = {}
    for username, count in plan.items():
        player = make_player(username)
        attempt, _ = attempt_start_ranked(player=player, challenge_id=daily.challenge_id)
        actions = daily.solution if count is None else daily.solution[:count]
        if actions:
            attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=actions)
        if count is not None:
            attempt_resign(attempt_id=attempt.pk, player=player)
        ids[username] = attempt.pk
    close_connection()
    return ids


def close_the_day(daily: Daily) -> None:
    from django.utils import timezone

    from games.models import DailyChallenge

    yesterday = timezone.now().date() - dt.timedelta(days=1)
    DailyChallenge.objects.filter(pk=daily.challenge_id).update(date=yesterday)
    close_connection()


def no_card_in_page_source(recorder: Recorder) -> None:
    sources = page_sources(recorder)
    assert sources
    for source in sources:
        assert '"tableau"' not in source and not CARD_IN_JSON.search(source)


def embedded_server_env(shift: float) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "tests.frontend.clock_server_settings",
        SHIFT_VARIABLE: str(shift),
        "REDIS_URL": "",  # the embedded run: in-memory channel layer, its own beat
        "DAILY_VARIANTS": QUICK_VARIANT,
        "DAILY_DAYS_AHEAD": "2",
        "PRACTICE_POOL_SIZE": "0",
    }


def practice_deal() -> None:
    """A verified practice deal (spider1, seed 2): practice games and races deal it."""
    from games.models import Deal
    from tests.factories import verified_deal

    verified_deal("spider1", 2, pool=Deal.Pool.PRACTICE)
    close_connection()


def open_room_by_form(page: Page, seats: int) -> str:
    """Open a public spider1 room with the rooms page's form; its code."""
    page.select_option("#room-variant", "spider1")
    page.fill("#room-seats", str(seats))
    page.fill("#room-minutes", "10")
    page.click("#room-form button")
    page.wait_for_url("**/rooms/*/")
    page.wait_for_selector("#room[data-ready='true']")
    return page.url.rstrip("/").rsplit("/", 1)[1]


def take_seat_and_ready(page: Page) -> None:
    """On a room's page: take a seat, then mark it ready."""
    page.wait_for_selector("#room[data-ready='true']")
    page.click("#join")
    expect(page.locator("#ready")).to_be_visible()
    page.click("#ready")


@contextmanager
def chromium_with_a_profile(folder: Path, viewport: dict[str, int]) -> Iterator[Any]:
    """Chromium with a profile on disk, as installed: a browser context of Playwright's own is
    incognito, where Chromium never offers to install and keeps no service worker's
    notifications. (The test sets DJANGO_ALLOW_ASYNC_UNSAFE: Playwright's loop runs in it.)"""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            folder,
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            viewport=ViewportSize(width=viewport["width"], height=viewport["height"]),
        )
        try:
            yield context
        finally:
            context.close()
