"""The web client in a real browser (Debian's Chromium) against the real ASGI server."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontend.conftest import DESKTOP, PHONE, Daily, Server, make_player
from tests.frontend.helpers import (
    CARD_IN_JSON,
    MOVE,
    action_count,
    assert_no_hidden_cards,
    attempt,
    board_labels,
    click_action,
    drag_action,
    hook_action,
    open_play,
    sign_in,
    start,
    wait_count,
)
from tests.frontend.page_support import (
    BROWSER_TEST,
    TOUCH_PHONE,
    new_player_at_play,
    page_errors,
    phone_context,
    recorded_page,
    signed_in_at_play,
    signed_up_at_play,
)

pytestmark = BROWSER_TEST


def _countdown_format() -> re.Pattern[str]:
    """What the home page's countdown to 00:00 UTC shows now: h:mm:ss, or m:ss in the
    day's last hour (either within a few seconds of that hour's start)."""
    now = dt.datetime.now(dt.UTC)
    midnight = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), dt.UTC)
    left = (midnight - now).total_seconds()
    if abs(left - 3600) < 10:
        return re.compile(r"^(\d+:\d\d:\d\d|\d{1,2}:\d\d)$")
    return re.compile(r"^\d+:\d\d:\d\d$" if left > 3600 else r"^\d{1,2}:\d\d$")


def test_sign_up_study_start_and_win_by_clicks_drag_and_keys(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    base = asgi_server.url
    context, page, recorder = recorded_page(browser, viewport=DESKTOP)
    errors = page_errors(page)

    # Sign up from the home page's link, coming back to the challenge.
    page.goto(f"{base}/")
    expect(page.locator("#challenges li")).to_have_count(1)
    expect(page.locator("#countdown")).to_have_text(_countdown_format())
    signed_up_at_play(page, base, "ada", daily.challenge_id)
    expect(page.locator(".who")).to_contain_text("ada")

    # Study: the visible cards are there, face-down ones are backs, nothing moves yet.
    expect(page.locator("#board .column")).to_have_count(10)
    expect(page.locator("#board .column .card.up")).to_have_count(10)
    expect(page.locator("#board .column .card.back")).to_have_count(44)
    expect(page.locator("#board .stock")).to_have_attribute("aria-label", re.compile("5 deals"))
    page.locator("#board .column[data-pile='t1'] .card.up").click()
    expect(page.locator("#status")).to_contain_text("press Start")
    assert attempt(page) is None
    expect(page.locator("#undo")).to_be_disabled()

    start(page)
    assert attempt(page)["action_count"] == 0
    expect(page.locator("#clock")).not_to_have_text("0:00", timeout=3000)

    solution = daily.solution
    # The first moves by clicks, then one by drag and drop, one by the keyboard,
    # the rest through the page's own client code, and the winning one by a click.
    for action in solution[:6]:
        click_action(page, action)
    drag_action(page, solution[6])
    keyboard_action(page, solution[7])
    for action in solution[8:-1]:
        hook_action(page, action)
    assert action_count(page) == len(solution) - 1
    click_action(page, solution[-1])

    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result")).to_contain_text("You won!")
    expect(page.locator("#result")).to_contain_text("Win bonus")
    expect(page.locator("#result")).to_contain_text(re.compile(r"Rank\s*1"))
    # the player's record pops up with the result (a stats screen), this game counted and
    # marked; the result is in view and has the focus
    stats = page.locator("#result-stats")
    expect(stats.locator(".stats-numbers")).to_contain_text("1Played")
    expect(stats.locator(".stats-numbers")).to_contain_text("100Win %")
    expect(stats.locator(".stats-numbers")).to_contain_text("1Current streak")
    expect(stats.locator(".stats-bars li.mine")).to_have_count(1)
    expect(stats.locator(".stats-bars li.mine")).to_contain_text("won")
    expect(page.locator("#result-title")).to_be_focused()
    expect(page.locator("#result")).to_be_in_viewport()
    share = page.input_value("#share")
    assert "Astrocyte Daily" in share and "Spider (1 suit)" in share and "won" in share
    assert f"{len(solution)} actions" in share and "score" in share
    assert "🟩" * 8 + " 8/8 runs home · won" in share
    assert share.splitlines()[-1] == f"{asgi_server.url}/leaderboards/{daily.challenge_id}/"
    assert re.search(r"\d{4}-\d\d-\d\d", share)
    assert not re.search(r"\b[A2-9TJQK][SHDC]\b", share), "the share text shows a card"
    expect(page.locator("#undo")).to_be_disabled()
    expect(page.locator("#leaderboard tbody")).to_contain_text("ada")

    assert_no_hidden_cards(recorder)
    assert errors == []
    context.close()


def keyboard_action(page: Any, action: str) -> None:
    """Focus the source card, Enter; arrows to the destination column; Enter."""
    match = re.match(r"^t(\d+)-t(\d+)(?::(\d+))?$", action)
    assert match, action
    src, dst, n = int(match.group(1)), int(match.group(2)), int(match.group(3) or 1)
    before = action_count(page)
    cards = page.locator(f"#board .column[data-pile='t{src}'] .card")
    top = cards.count() - 1
    page.locator(f"[data-focus='t{src}:{top}']").focus()
    for _ in range(n - 1):
        page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("Picked up")
    steps = (dst - src) % 10
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => document.activeElement.dataset.focus")
    assert focused.startswith(f"t{dst}:"), focused
    page.keyboard.press("Enter")
    wait_count(page, before + 1)


def test_illegal_drop_is_refused_with_the_servers_explanation(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context, page = new_player_at_play(browser, asgi_server.url, "bea", daily.challenge_id)
    start(page)
    legal = set(attempt(page)["legal_actions"])
    illegal = next(
        f"t{src}-t{dst}"
        for src in range(1, 11)
        for dst in range(1, 11)
        if src != dst and f"t{src}-t{dst}" not in legal
    )
    before = board_labels(page)
    # Only legal places are offered: the illegal one is not highlighted.
    src, dst = illegal.split("-")
    page.locator(f"#board .column[data-pile='{src}'] .card").last.click()
    expect(page.locator(f"#board .column[data-pile='{dst}']")).not_to_have_class(
        re.compile(r"\btarget\b")
    )
    page.keyboard.press("Escape")
    drag_to(page, src, dst)
    # In words: the cards and the column named, no action index and no move code.
    card = r"(Ace|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King) of \w+"
    expect(page.locator("#status")).to_have_text(
        re.compile(rf"^The {card} cannot go on the {card} in column {dst[1:]}: .+\.$")
    )
    status = page.locator("#status").inner_text()
    assert "Action " not in status and illegal not in status and "Refused" not in status
    assert page.locator("#status").get_attribute("data-kind") == "error"
    # ...and the board gave a short shake, which reduced motion turns off.
    assert page.locator("#board").get_attribute("data-refusals") == "1"
    probe = """(() => {
        const d = document.body.appendChild(document.createElement("div"));
        d.className = "board refused";
        const name = getComputedStyle(d).animationName;
        d.remove();
        return name;
    })()"""
    assert page.evaluate(probe) == "refused-shake"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(probe) == "none"
    page.emulate_media(reduced_motion="no-preference")
    assert action_count(page) == 0 and attempt(page)["offset"] == 0
    assert board_labels(page) == before
    context.close()


CONTRAST = """(selector) => {
    const rgb = (text) => text.match(/[0-9.]+/g).map(Number);
    const opaque = (color) => color.length < 4 || color[3] > 0;
    const lum = ([r, g, b]) => [r, g, b].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }).reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const node = document.querySelector(selector);
    const style = getComputedStyle(node);
    let backdrop = null;
    for (let up = node.parentElement; up && !backdrop; up = up.parentElement) {
        const color = rgb(getComputedStyle(up).backgroundColor);
        if (opaque(color)) backdrop = color;
    }
    backdrop = backdrop || [255, 255, 255];
    const own = rgb(style.backgroundColor);
    const opacity = Number(style.opacity);
    const blend = (color) =>
        color.slice(0, 3).map((v, i) => v * opacity + backdrop[i] * (1 - opacity));
    const fg = blend(rgb(style.color));
    const bg = blend(opaque(own) ? own : backdrop);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
}"""


def contrast_of(page: Any, selector: str) -> float:
    """WCAG's contrast ratio of an element's text on its background, its opacity blended
    over the first opaque background behind it."""
    return float(page.evaluate(CONTRAST, selector))


def drag_to(page: Any, src: str, dst: str) -> None:
    card = page.locator(f"#board .column[data-pile='{src}'] .card").last.bounding_box()
    target = page.locator(f"#board .column[data-pile='{dst}']").bounding_box()
    page.mouse.move(card["x"] + 10, card["y"] + 10)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 20, steps=10)
    page.mouse.up()


def test_a_double_click_sends_a_card_to_its_first_listed_place(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context, page = new_player_at_play(browser, asgi_server.url, "dot", daily.challenge_id)
    start(page)

    def first_moves() -> dict[str, str]:
        """Each column's first listed action for its top card alone, in the server's order."""
        firsts: dict[str, str] = {}
        for action in attempt(page)["legal_actions"]:
            match = MOVE.match(action)
            if match and match.group(1)[0] == "t" and not match.group(3):
                firsts.setdefault(match.group(1), action)
        return firsts

    # The first click picks the card up and redraws the board, so the browser fires no
    # dblclick event (its two clicks hit different nodes): the page counts the clicks.
    src, action = next(iter(first_moves().items()))
    page.locator(f"#board .column[data-pile='{src}'] .card").last.dblclick()
    wait_count(page, 1)
    # The status says the move in words, not its code.
    dst = action.split("-")[1].split(":")[0]
    expect(page.locator("#status")).to_have_text(
        re.compile(rf"^Moved .+ from column {src[1:]} to (column|cell) {dst[1:]}\.$")
    )

    stuck = next(f"t{i}" for i in range(1, 11) if f"t{i}" not in first_moves())
    page.locator(f"#board .column[data-pile='{stuck}'] .card").last.dblclick()
    expect(page.locator("#status")).to_contain_text("the server lists none")
    assert page.locator("#status").get_attribute("data-kind") == "error"
    assert action_count(page) == 1
    context.close()


def test_undo_after_a_deal_restores_the_board(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context, page = new_player_at_play(browser, asgi_server.url, "cy", daily.challenge_id)
    expect(page.locator("#deal")).to_have_text("Deal (5 left)")  # before Start too
    assert page.locator("#deal").is_disabled()
    assert contrast_of(page, "#deal") >= 4.5  # a disabled button's words stay legible
    start(page)
    before = board_labels(page)
    click_action(page, "deal")
    expect(page.locator("#deal")).to_have_text("Deal (4 left)")
    assert board_labels(page) != before
    page.keyboard.press("u")
    wait_count(page, 2)
    assert board_labels(page) == before
    expect(page.locator("#deal")).to_have_text("Deal (5 left)")
    page.click("#resign")
    page.click("#resign")  # "Really resign?"
    expect(page.locator("#result-body .outcome")).to_have_text("You resigned.")
    assert "null" not in page.locator("#result-body").inner_text()
    context.close()


def test_reload_resumes_and_a_lost_answer_is_retried_not_doubled(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    make_player("dee")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    # The page plays over its play socket (ws/attempts/<id>/play/): this proxy passes every
    # frame, until armed: then the server's next answer is lost, the socket with it.
    lost: list[str] = []
    armed: list[bool] = []
    sent: list[str] = []

    def play_socket(route: Any) -> None:
        server = route.connect_to_server()

        def from_server(message: str) -> None:
            if armed and not lost and '"type": "answer"' in message:
                lost.append(message)  # the server stored the batch; the page never hears
                route.close(code=1011)
                return
            route.send(message)

        def from_page(message: str) -> None:
            sent.append(message)
            server.send(message)

        server.on_message(from_server)
        route.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/attempts/\d+/play/$"), play_socket)
    http_posts: list[str] = []

    def seen(request: Any) -> None:
        if request.url.endswith("/actions/"):
            http_posts.append(request.url)

    page.on("request", seen)
    sign_in(page, asgi_server.url, "dee", f"/play/{daily.challenge_id}/")
    open_play(page, asgi_server.url, daily.challenge_id)
    start(page)
    for action in daily.solution[:4]:
        click_action(page, action)
    assert http_posts == []  # every action went over the socket

    # The next batch reaches the server, but its answer is lost with the socket: the page
    # shows the banner, sends the same batch at the same offset again, and the server
    # answers as before.
    armed.append(True)
    page.evaluate("a => { window.lostPost = window.astrocyte.send([a]); }", daily.solution[4])
    wait_count(page, 5)
    expect(page.locator("#banner")).to_be_hidden()
    assert '"offset": 5' in lost[0]
    # sent twice at offset 4 (over the new socket, or over HTTP while it reconnected),
    # stored once
    resent = [m for m in sent if '"offset":4' in m.replace(" ", "")] + http_posts
    assert len(resent) == 2, (resent, http_posts)
    assert attempt(page)["offset"] == 5

    labels = board_labels(page)
    page.reload()
    open_play(page, asgi_server.url, daily.challenge_id)
    expect(page.locator("#status")).to_contain_text("where you left it")
    assert action_count(page) == 5
    assert board_labels(page) == labels
    click_action(page, daily.solution[5])
    context.close()


def test_a_watcher_sees_progress_and_the_new_rank_without_reloading(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    make_player("eve")
    watcher_context, watcher, recorder = recorded_page(browser, viewport=DESKTOP)
    open_play(watcher, asgi_server.url, daily.challenge_id)
    expect(watcher.locator("#live-state")).to_have_text("Live")
    expect(watcher.locator("#leaderboard tbody")).to_contain_text("Nobody has finished")

    context, page = signed_in_at_play(browser, asgi_server.url, "eve", daily.challenge_id)
    start(page)
    first_deal = daily.solution.index("deal")
    for action in daily.solution[: first_deal + 1]:
        hook_action(page, action)
    # A deal is progress: the watcher's "playing now" shows eve with her count.
    row = watcher.locator("#playing li[data-player='eve']")
    expect(row).to_contain_text(f"{first_deal + 1} actions")
    expect(row).to_contain_text("4 deals left")
    for action in daily.solution[first_deal + 1 :]:
        hook_action(page, action)
    expect(page.locator("#result")).to_contain_text("You won!")
    # The finish reaches the watcher as a new board: eve ranked first.
    first = watcher.locator("#leaderboard tbody tr").first
    expect(first).to_contain_text("eve")
    expect(first.locator("td").first).to_have_text("1")
    expect(watcher.locator("#playing li[data-player='eve']")).to_have_count(0)
    assert watcher.url.endswith(f"/play/{daily.challenge_id}/")  # never reloaded
    assert recorder.frames and not any(CARD_IN_JSON.search(f) for f in recorder.frames)
    assert_no_hidden_cards(recorder)
    context.close()
    watcher_context.close()


def test_screenshots_of_the_board_on_a_desktop_and_a_phone(
    asgi_server: Server, browser: Any, daily: Daily, screenshots_dir: Path
) -> None:
    context, page = new_player_at_play(
        browser,
        asgi_server.url,
        "fay",
        daily.challenge_id,
        viewport=DESKTOP,
        reduced_motion="reduce",
    )
    start(page)
    for action in daily.solution[:14]:
        hook_action(page, action)
    page.locator("#board .column[data-pile='t3'] .card").last.click()
    page.wait_for_timeout(100)
    page.screenshot(path=str(screenshots_dir / "play-desktop.png"))
    state = context.storage_state()
    context.close()

    phone = phone_context(browser, state)
    page = phone.new_page()
    open_play(page, asgi_server.url, daily.challenge_id)
    expect(page.locator("#actions")).to_have_text("14")
    # The board fits the phone's width: no sideways scrolling.
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    # A touch drag is a pointer drag too: tap-select then tap-place works on a phone.
    page.screenshot(path=str(screenshots_dir / "play-phone.png"), full_page=True)
    phone.close()
    assert (screenshots_dir / "play-desktop.png").stat().st_size > 10_000


COUNT_ANIMATIONS = """(() => {
  window.animated = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    window.animated.push(this.dataset.pile || this.className);
    return animate.call(this, frames, options);
  };
})()"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moved_cards_slide_unless_the_player_asks_for_reduced_motion(
    asgi_server: Server, browser: Any, daily: Daily, motion: str
) -> None:
    name = "mo" if motion == "reduce" else "mi"
    make_player(name)
    context = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    context.add_init_script(COUNT_ANIMATIONS)
    page = context.new_page()
    sign_in(page, asgi_server.url, name, f"/play/{daily.challenge_id}/")
    open_play(page, asgi_server.url, daily.challenge_id)
    start(page)
    first_move = next(action for action in daily.solution if MOVE.match(action))
    index = daily.solution.index(first_move)
    for action in daily.solution[:index]:
        click_action(page, action)
    page.evaluate("() => { window.animated = []; }")
    click_action(page, first_move)
    destination = MOVE.match(first_move)
    assert destination
    slid = page.evaluate("() => window.animated")
    if motion == "reduce":
        assert slid == []
        # nor any CSS animation (the flip of a card turned face up, the shake)
        assert page.evaluate("() => document.getAnimations().length") == 0
    else:
        assert destination.group(2) in slid, slid  # the moved card slid into its column
    # The card it covers now shows its rank and its suit in the strip left visible (once
    # the slide is over).
    page.wait_for_function("() => document.getAnimations().length === 0")
    cards = page.locator(f"#board .column[data-pile='{destination.group(2)}'] .card.up")
    covered, top = cards.nth(cards.count() - 2), cards.nth(cards.count() - 1).bounding_box()
    assert top is not None
    for glyph in ("b", "i"):
        box = covered.locator(f".corner:not(.end) {glyph}").bounding_box()
        assert box is not None and box["y"] + box["height"] <= top["y"] + 1, (glyph, box, top)
    context.close()


def test_spider_on_a_phone_has_cards_large_enough_to_read(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    context, page = new_player_at_play(
        browser, asgi_server.url, "pho", daily.challenge_id, **TOUCH_PHONE
    )
    start(page)
    expect(page.locator("#board .column")).to_have_count(10)
    card = page.locator("#board .column .card.up").first
    box = card.bounding_box()
    assert box is not None and box["width"] >= 34, box  # ten columns on 390 px
    rank = card.locator(".corner:not(.end) b")
    size = float(rank.evaluate("node => parseFloat(getComputedStyle(node).fontSize)"))
    assert size >= 12, size
    header = page.locator("header.site").bounding_box()
    assert header is not None and header["height"] <= 0.12 * PHONE["height"], header
    # turned sideways: the board and the side panel side by side
    page.set_viewport_size({"width": PHONE["height"], "height": PHONE["width"]})
    board = page.locator("#board").bounding_box()
    assert board is not None and board["width"] >= 0.6 * PHONE["height"], board
    context.close()


COUNT_TONES = """(() => {
  window.tones = 0;
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.tones += 1;
    return make.call(this);
  };
})()"""


def test_sound_is_off_until_the_player_turns_it_on(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    make_player("son")
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(COUNT_TONES)
    page = context.new_page()
    sign_in(page, asgi_server.url, "son", f"/play/{daily.challenge_id}/")
    open_play(page, asgi_server.url, daily.challenge_id)
    start(page)
    expect(page.locator("#sound")).to_have_text("Sound: off")
    click_action(page, daily.solution[0])
    assert page.evaluate("() => window.tones") == 0
    page.click("#sound")
    expect(page.locator("#sound")).to_have_text("Sound: on")
    click_action(page, daily.solution[1])
    assert page.evaluate("() => window.tones") >= 1
    # kept in this browser: on after a reload too
    page.reload()
    open_play(page, asgi_server.url, daily.challenge_id)
    expect(page.locator("#sound")).to_have_text("Sound: on")
    context.close()


def test_once_every_card_is_up_the_server_finishes_the_game(
    asgi_server: Server, browser: Any, daily: Daily
) -> None:
    from tests.games.api_support import safe_prefix

    safe_at = safe_prefix(daily.variant, daily.seed, daily.solution)
    context, page = new_player_at_play(browser, asgi_server.url, "fin", daily.challenge_id)
    start(page)
    expect(page.locator("#finish")).to_be_hidden()
    page.evaluate("a => window.astrocyte.send(a)", daily.solution[:safe_at])
    wait_count(page, safe_at)
    expect(page.locator("#finish")).to_be_visible()
    page.click("#finish")
    expect(page.locator("#result")).to_contain_text("You won!")
    assert attempt(page)["won"] is True
    assert action_count(page) > safe_at
    context.close()
