"""Reminders in Chromium: the service worker's `push` handler shows the server's message as
a notification (delivered through the DevTools protocol, ServiceWorker.deliverPushMessage:
the browsers' own push services cannot be reached from here, and the encryption on the way
is tested against a local push service in tests/notifications/), and what its
`notificationclick` handler does, opening the reminder's page, brings the site's window
there. On their own page a player switches kinds and sets quiet hours, which the server
keeps. Not tested here: subscribing in the browser (PushManager.subscribe needs the
browser's push service) and a real tap on a notification (headless Chromium shows none)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from notifications.kinds import league_passed
from tests.frontend.conftest import (
    DESKTOP,
    Server,
    close_connection,
    make_player,
)
from tests.frontend.helpers import chromium_with_a_profile, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Run in the service worker before the push: from then on it reports each notification it
# shows (the arguments and whether Chromium took it). Headless Chromium closes a shown
# notification at a moment of its own (registration.getNotifications() finds it, or already
# not), so the worker's own report is what the test reads.
REPORT_SHOWN = """() => {
  const show = self.registration.showNotification.bind(self.registration);
  self.shownForTest = [];
  self.registration.showNotification = (title, options) => show(title, options).then(() => {
    self.shownForTest.push({ title, body: options.body, tag: options.tag, url: options.data.url });
  });
}"""

# Run in the service worker: the notifications reported shown, once there is one (asked
# again and again: a bounded number of asks, no timer).
SHOWN = """async () => {
  for (let asked = 0; asked < 200000 && !self.shownForTest.length; asked++) {
    await self.registration.getNotifications();
  }
  return self.shownForTest;
}"""


@pytest.fixture
def profile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """Chromium with a profile on disk (service workers and notifications as installed)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_with_a_profile(tmp_path / "profile", DESKTOP) as context:
        yield context


def test_a_pushed_reminder_is_shown_and_a_tap_opens_its_page(
    profile: Any, asgi_server: Server
) -> None:
    base = asgi_server.url
    profile.grant_permissions(["notifications"], origin=base)
    page = profile.pages[0] if profile.pages else profile.new_page()
    page.goto(f"{base}/rules/")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    cdp = profile.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(500):  # the registrations' report arrives while Playwright is busy here
        ours = [r for r in registrations if r["scopeURL"] == f"{base}/"]
        if ours:
            break
        page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    assert ours, registrations
    registration = ours[-1]

    (worker,) = profile.service_workers
    worker.evaluate(REPORT_SHOWN)
    message = league_passed("max", "Friday club", 2, 7, "/leagues/4242/").as_json()
    push = {"origin": base, "registrationId": registration["registrationId"]}
    cdp.send("ServiceWorker.deliverPushMessage", {**push, "data": json.dumps(message)})
    assert worker.evaluate(SHOWN) == [
        {
            "title": "max passed you in Friday club",
            "body": "You are now #2 of 7 on today's board.",
            "tag": "league_passed",
            "url": "/leagues/4242/",
        }
    ]

    # A tap: what the notificationclick handler does with the notification's page (the
    # DevTools protocol cannot click a notification, and headless Chromium keeps none to
    # dispatch the event with): the site's open window is brought there.
    worker.evaluate("(url) => openPage(url)", message["url"])
    page.wait_for_url(f"{base}/leagues/4242/")


def test_the_player_chooses_their_reminders_on_their_page(
    browser: Any, asgi_server: Server
) -> None:
    from notifications.models import ReminderSettings

    player = make_player("rhea")
    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, asgi_server.url, "rhea", "/players/rhea/")
    section = page.locator("#reminders")
    expect(section).to_be_visible()
    expect(section.get_by_label("today's deal is ready")).to_be_checked()
    section.get_by_label("a league mate passes me on today's board").uncheck()
    section.get_by_label("from").fill("22:30")
    section.get_by_label("until").fill("07:00")
    section.get_by_label("time zone").fill("Europe/Oslo")
    section.get_by_role("button", name="Save reminders").click()
    expect(page.locator("#reminders-state")).to_have_text("Reminders saved.")

    saved = ReminderSettings.objects.get(player=player)
    assert saved.league_passed is False and saved.deal_ready is True
    assert (str(saved.quiet_from), str(saved.quiet_until)) == ("22:30:00", "07:00:00")
    assert saved.time_zone == "Europe/Oslo"
    close_connection()

    section.get_by_label("time zone").fill("Atlantis/Capital")
    section.get_by_role("button", name="Save reminders").click()
    expect(page.locator("#reminders-state")).to_contain_text("time zone")
