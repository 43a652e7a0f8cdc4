"""The play page in Debian's Chromium (issue 5, "Figures"): first load and drop latency.

Run from the repository root::

    .venv/bin/python -m bench.frontend_bench [--database-url URL] [--drops 40]

Without ``--database-url`` it uses a throwaway SQLite file (the embedded default); with
one, that database must be a scratch one (it is migrated and gets a daily, a user, an
attempt). It makes today's spider1 daily from seed 2 (verified by the solver), a player,
starts the ASGI server (uvicorn, ``DEBUG=true``, static files from the app), and measures
with the browser's own timing:

- first load of the play page, signed in, empty cache: bytes transferred (navigation +
  every resource, Resource Timing ``transferSize``) and the time from navigation start to
  the page being interactive (the board drawn from the API, handlers attached: the
  ``astrocyte-ready`` performance mark), also DOMContentLoaded;
- drop to board updated: ``--drops`` real mouse drags of the solution's moves; from the
  ``pointerup`` to the end of the render of the server's answer, median and p90. The page
  sends its actions over the play socket; ``--transport http`` refuses the socket (4404),
  so that the page posts them over HTTP, as before the socket.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.chromium import CHROMIUM_ARGS, chromium_path

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "bench-password-123"
MOVE = re.compile(r"^(t\d+)-(t\d+)(?::(\d+))?$")


def prepare(database_url: str) -> tuple[int, list[str], str]:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from games.models import DailyChallenge
    from games.services.deals import deal_create, deal_schedule, deal_verify

    call_command("migrate", verbosity=0)
    today = timezone.now().date()
    challenge = DailyChallenge.objects.filter(date=today, variant="spider1").first()
    if challenge is None:
        deal = deal_create(variant="spider1", seed=2)
        deal = deal_verify(deal_id=deal.pk, seconds=30)
        challenge = deal_schedule(deal=deal, date=today)
    username = f"bench{int(time.time())}"
    get_user_model().objects.create_user(username=username, password=PASSWORD)
    return challenge.pk, list(challenge.deal.solution or []), username


def serve(database_url: str, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DATABASE_URL=database_url, DEBUG="true", LOG_LEVEL="WARNING")
    env.setdefault("THROTTLE_ACTIONS", "100000/min")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
         "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def first_load(browser: Any, base: str, challenge_id: int, state: Any) -> dict[str, float]:
    context = browser.new_context(storage_state=state, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{base}/play/{challenge_id}/")
    page.wait_for_selector("#play[data-ready='true']")
    page.wait_for_load_state("load")
    timing = page.evaluate(
        """() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const resources = performance.getEntriesByType("resource");
        const ready = performance.getEntriesByName("astrocyte-ready")[0];
        return {
          bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
          decoded: nav.decodedBodySize + resources.reduce((sum, r) => sum + r.decodedBodySize, 0),
          requests: 1 + resources.length,
          dom_content_loaded_ms: nav.domContentLoadedEventEnd,
          interactive_ms: ready.startTime,
        };
    }"""
    )
    context.close()
    return timing


def drop_latencies(page: Any, solution: list[str], drops: int) -> list[float]:
    page.evaluate(
        """() => window.addEventListener("pointerup", () => {
            window.benchUp = performance.now(); }, { capture: true })"""
    )
    latencies: list[float] = []
    for action in solution:
        if len(latencies) >= drops:
            break
        match = MOVE.match(action)
        if not match:
            page.evaluate("a => window.astrocyte.send([a])", action)
            page.wait_for_timeout(300)  # let the deal's animation settle before aiming
            continue
        src, dst, n = match.group(1), match.group(2), int(match.group(3) or 1)
        offset = page.evaluate("() => window.astrocyte.state().attempt.offset")
        # aim only once the board stands still (a finished run is animated off its column)
        page.wait_for_function(
            "() => document.getAnimations().every(a => a.playState !== 'running')",
            timeout=10000,
        )
        cards = page.locator(f"#board .column[data-pile='{src}'] .card")
        card = cards.nth(cards.count() - n).bounding_box()
        target = page.locator(f"#board .column[data-pile='{dst}']").bounding_box()
        page.mouse.move(card["x"] + 8, card["y"] + 8)
        page.mouse.down()
        page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 20, steps=5)
        page.mouse.up()
        try:
            page.wait_for_function(
                "o => { const s = window.astrocyte.state();"
                " return s.attempt.offset > o && !s.busy && s.lastUpdate > window.benchUp; }",
                arg=offset,
                timeout=10000,
            )
        except Exception:
            raise SystemExit(f"{action} not played: {page.inner_text('#status')}") from None
        latencies.append(
            page.evaluate("() => window.astrocyte.state().lastUpdate - window.benchUp")
        )
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--drops", type=int, default=40)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument(
        "--transport",
        choices=["socket", "http"],
        default="socket",
        help="http: the play socket is refused (4404), so the page posts its actions",
    )
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="frontend-bench-")
    database_url = args.database_url or f"sqlite:///{scratch}/bench.sqlite3"
    os.environ.pop("REDIS_URL", None) if not args.database_url else None
    challenge_id, solution, username = prepare(database_url)
    server = serve(database_url, args.port)
    base = f"http://127.0.0.1:{args.port}"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium_path(), args=CHROMIUM_ARGS
            )
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            if args.transport == "http":
                page.route_web_socket(
                    re.compile(r"/ws/attempts/\d+/play/$"), lambda route: route.close(code=4404)
                )
            page.goto(f"{base}/login/?next=/play/{challenge_id}/")
            page.fill("#username", username)
            page.fill("#password", PASSWORD)
            page.click("#auth-form button")
            page.wait_for_selector("#play[data-ready='true']")
            page.click("#start")
            page.wait_for_selector("#start", state="hidden")
            state = context.storage_state()
            loads = [first_load(browser, base, challenge_id, state) for _ in range(args.loads)]
            latencies = drop_latencies(page, solution, args.drops)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)

    median = lambda key: statistics.median(load[key] for load in loads)  # noqa: E731
    print(f"first load of the play page (median of {len(loads)} cold loads):")
    print(
        f"  transferred: {median('bytes') / 1024:.1f} KB in {loads[0]['requests']} requests"
        f" (decoded {median('decoded') / 1024:.1f} KB)"
    )
    print(
        f"  DOMContentLoaded: {median('dom_content_loaded_ms'):.0f} ms;"
        f" interactive (board drawn): {median('interactive_ms'):.0f} ms"
    )
    ordered = sorted(latencies)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    print(
        f"drop to board updated over {args.transport} ({len(latencies)} drops): median"
        f" {statistics.median(latencies):.1f} ms, p90 {p90:.1f} ms, max {ordered[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
