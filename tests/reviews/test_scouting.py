"""Scouting is seen: a spare account that deals through the stock and quits, linked to the
account that then plays the same daily, puts that account in the staff's queue with the
link as evidence; honest players sharing an address do not reach it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import DailyChallenge
from games.services.attempts import attempts_close_day
from reviews.models import Review, Sighting
from reviews.sightings import DEVICE_COOKIE
from tests.games.api_support import past_challenge_of, todays_challenge
from tests.reviews.support import PASSWORD, Browser, honest, scout

# Reviews are filed after the commit of the attempt's end, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh(fresh_throttles: None) -> None:
    """Each test gets its own throttle counts (many sign-ups from one address)."""


@pytest.fixture
def challenge() -> DailyChallenge:
    return todays_challenge()


def queue(challenge: DailyChallenge) -> list[dict[str, Any]]:
    staff = APIClient()
    staffer, _ = User.objects.get_or_create(username="staffer", defaults={"is_staff": True})
    staff.force_authenticate(staffer)
    response = staff.get(f"/api/v1/admin/reviews/?challenge={challenge.pk}")
    assert response.status_code == 200, response.content
    return list(response.json()["reviews"])


def test_a_scout_on_the_same_browser_puts_the_main_account_in_the_queue(
    challenge: DailyChallenge,
) -> None:
    browser = Browser("198.51.100.7")
    scout_attempt = scout(browser, challenge, "spare-one")
    browser.log_out()
    main_attempt = honest(browser, challenge, "main-one")

    [review] = queue(challenge)
    assert review["attempt_id"] == main_attempt and review["player"] == "main-one"
    assert review["severity"] == "high" and review["status"] == "open"
    link = next(item for item in review["evidence"] if item["kind"] == "scout_link")
    assert link["attempt_ids"] == [scout_attempt]
    assert link["account_ids"] == [User.objects.get(username="spare-one").pk]
    assert (
        "device cookie" in link["text"]
        and "5 stock deals within its first 5 actions" in (link["text"])
    )


def test_a_scout_from_the_same_address_on_another_device_is_evidence_too(
    challenge: DailyChallenge,
) -> None:
    scout(Browser("198.51.100.8", "phone"), challenge, "spare-two")
    main_attempt = honest(Browser("198.51.100.8", "laptop"), challenge, "main-two")
    [review] = queue(challenge)
    assert review["attempt_id"] == main_attempt
    [link] = [item for item in review["evidence"] if item["kind"] == "scout_link"]
    assert "the same client address" in link["text"] and "device" not in link["text"]


def test_a_scout_that_quits_after_the_main_game_ended_still_files_the_review(
    challenge: DailyChallenge,
) -> None:
    spare, main = Browser("198.51.100.9"), Browser("198.51.100.9")
    spare.sign_up("spare-late")
    scout_attempt = spare.start(challenge)
    spare.play(scout_attempt, ["deal"] * 5)
    main_attempt = honest(main, challenge, "main-late")
    assert queue(challenge) == []  # the scout is still playing: nothing to say yet
    spare.resign(scout_attempt)
    assert [review["attempt_id"] for review in queue(challenge)] == [main_attempt]


def test_a_main_game_left_to_the_days_close_is_reviewed_at_the_close(
    challenge: DailyChallenge,
) -> None:
    browser = Browser("198.51.100.10")
    scout(browser, challenge, "spare-close")
    browser.log_out()
    browser.sign_up("main-close")
    main_attempt = browser.start(challenge)
    line = [str(action) for action in challenge.deal.solution or []]
    browser.play(main_attempt, line[:10])  # and never ends it: the close does
    assert queue(challenge) == []
    past_challenge_of(challenge)
    assert attempts_close_day() == [main_attempt]
    [review] = queue(challenge)
    assert review["attempt_id"] == main_attempt
    assert any(item["kind"] == "scout_link" for item in review["evidence"])


def test_honest_players_sharing_an_address_reach_no_queue(challenge: DailyChallenge) -> None:
    for number in range(4):
        honest(Browser("203.0.113.50", f"agent-{number % 2}"), challenge, f"office-{number}")
    assert queue(challenge) == []
    assert Review.objects.count() == 0


def test_a_scout_with_no_linked_account_files_nothing(challenge: DailyChallenge) -> None:
    scout(Browser("203.0.113.60"), challenge, "lone-scout")
    honest(Browser("203.0.113.61"), challenge, "stranger")
    assert queue(challenge) == []


def test_the_device_cookie_is_signed_and_http_only_and_no_address_is_stored() -> None:
    browser = Browser("192.0.2.44")
    browser.sign_up("cookie-one")
    cookie = browser.client.cookies[DEVICE_COOKIE]
    assert cookie["httponly"] and len(cookie.value) > 40 and ":" in cookie.value  # signed
    [sighting] = Sighting.objects.filter(user__username="cookie-one")
    assert sighting.device and sighting.device in cookie.value
    assert "192.0.2.44" not in sighting.address and len(sighting.address) == 64
    # A forged cookie is not taken: the browser gets a new device id.
    browser.client.cookies[DEVICE_COOKIE] = "forged-device-id"
    browser.log_out()
    browser.post("/api/v1/auth/login/", {"username": "cookie-one", "password": PASSWORD})
    devices = set(
        Sighting.objects.filter(user__username="cookie-one").values_list("device", flat=True)
    )
    assert "forged-device-id" not in devices and len(devices) == 2


def test_a_token_client_is_seen_by_address_and_client_without_a_cookie(
    challenge: DailyChallenge,
) -> None:
    api = APIClient(REMOTE_ADDR="192.0.2.80", HTTP_USER_AGENT="astro-bot/1.0")
    body = {"username": "token-one", "password": PASSWORD}
    response = api.post("/api/v1/auth/token/signup/", body, format="json")
    assert response.status_code == 201, response.content
    assert DEVICE_COOKIE not in response.cookies
    api.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert api.post(f"/api/v1/challenges/{challenge.pk}/start/").status_code == 201
    rows = Sighting.objects.filter(user__username="token-one")
    assert {(row.device, row.client) for row in rows} == {("", "astro-bot/1.0")}


def test_accounts_made_for_the_day_weigh_more_than_old_ones_on_a_shared_address(
    challenge: DailyChallenge,
) -> None:
    """Linked by the address alone: old accounts (joined days apart, before the day opened)
    are a medium review; a spare made today makes it high, with that evidence."""
    old_scout, old_main = Browser("198.51.100.30", "phone"), Browser("198.51.100.30", "laptop")
    old_scout.sign_up("old-spare")
    old_main.sign_up("old-main")
    User.objects.filter(username="old-spare").update(
        date_joined=timezone.now() - dt.timedelta(days=9)
    )
    User.objects.filter(username="old-main").update(
        date_joined=timezone.now() - dt.timedelta(days=3)
    )
    spare_attempt = old_scout.start(challenge)
    old_scout.play(spare_attempt, ["deal"] * 5)
    old_scout.resign(spare_attempt)
    main_attempt = old_main.start(challenge)
    old_main.play(main_attempt, ["deal"])
    old_main.resign(main_attempt)
    [review] = queue(challenge)
    assert review["severity"] == "medium"
    assert {item["kind"] for item in review["evidence"]} == {"scout_link"}

    scout(Browser("198.51.100.31", "phone"), challenge, "new-spare")
    new_main = Browser("198.51.100.31", "laptop")
    new_main.sign_up("old-main-2")
    User.objects.filter(username="old-main-2").update(
        date_joined=timezone.now() - dt.timedelta(days=5)
    )
    attempt_id = new_main.start(challenge)
    new_main.play(attempt_id, ["deal"])
    new_main.resign(attempt_id)
    review = next(r for r in queue(challenge) if r["player"] == "old-main-2")
    assert review["severity"] == "high"
    kinds = {item["kind"] for item in review["evidence"]}
    assert kinds == {"scout_link", "new_account"}
