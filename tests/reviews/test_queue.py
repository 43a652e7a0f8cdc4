"""The staff's review queue: staff only, never a player's to see; voiding from the review
page takes the attempt off the board at once and rates its day again without it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games.models import Attempt, DailyChallenge
from games.services.attempts import attempts_close_day
from leaderboards.ratings.models import RatingChange
from leaderboards.ratings.services import ratings_rate_day
from reviews.models import Review
from tests.games.api_support import past_challenge_of, todays_challenge
from tests.reviews.support import Browser, honest, scout

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh(fresh_throttles: None) -> None:
    """Each test gets its own throttle counts (many sign-ups from one address)."""


@pytest.fixture
def scouted() -> tuple[DailyChallenge, int, Browser]:
    """Today's daily: a scout and its main account on one browser, and an honest player
    elsewhere (the main account's review is in the queue)."""
    challenge = todays_challenge()
    browser = Browser("198.51.100.20")
    scout(browser, challenge, "spare-q")
    browser.log_out()
    main_attempt = honest(browser, challenge, "main-q", actions=30)
    honest(Browser("198.51.100.21"), challenge, "honest-q", actions=10)
    assert Review.objects.filter(attempt_id=main_attempt).exists()
    return challenge, main_attempt, browser


def test_only_staff_read_the_queue(scouted: tuple[DailyChallenge, int, Browser]) -> None:
    challenge, main_attempt, _ = scouted
    url = f"/api/v1/admin/reviews/?challenge={challenge.pk}"
    assert APIClient().get(url).status_code == 401
    player = APIClient()
    player.force_authenticate(User.objects.get(username="honest-q"))
    answer = player.get(url)
    assert answer.status_code == 403 and "evidence" not in answer.content.decode()
    staff = APIClient()
    staff.force_authenticate(User.objects.create_user("staff-q", is_staff=True))
    assert [r["attempt_id"] for r in staff.get(url).json()["reviews"]] == [main_attempt]
    missing = staff.get("/api/v1/admin/reviews/")
    assert missing.status_code == 400 and "challenge" in missing.json()["error"]["details"]
    assert staff.get("/api/v1/admin/reviews/?challenge=x").status_code == 400


def test_a_player_never_sees_another_players_review(
    scouted: tuple[DailyChallenge, int, Browser],
) -> None:
    challenge, main_attempt, _ = scouted
    other = APIClient()
    other.force_authenticate(User.objects.get(username="honest-q"))
    answers = [
        other.get(f"/api/v1/leaderboards/challenges/{challenge.pk}/"),
        other.get("/api/v1/leaderboards/players/main-q/"),
        other.get("/api/v1/leaderboards/players/spare-q/"),
        other.get(f"/api/v1/attempts/{main_attempt}/"),
        other.get(f"/api/v1/challenges/{challenge.pk}/"),
    ]
    assert answers[0].status_code == 200 and "main-q" in answers[0].content.decode()
    assert answers[3].status_code == 404
    for answer in answers:
        text = answer.content.decode().lower()
        for word in ("review", "evidence", "severity", "scout", "flag", "device"):
            assert word not in text, (answer.request["PATH_INFO"], word)


def rated(scouted: tuple[DailyChallenge, int, Browser]) -> tuple[DailyChallenge, int, Any]:
    """The scouted day, over and rated, the main account's rating change in it: (the
    challenge, the main account's attempt, the main account)."""
    challenge, main_attempt, _ = scouted
    challenge = past_challenge_of(challenge)
    attempts_close_day()
    assert ratings_rate_day(challenge_id=challenge.pk) == "rated"
    main = User.objects.get(username="main-q")
    assert RatingChange.objects.filter(challenge=challenge, player=main).exists()
    return challenge, main_attempt, main


def signed_in_admin(name: str) -> Client:
    admin = Client()
    admin.force_login(User.objects.create_superuser(name, "op@example.com", f"pw-{name}-1"))
    return admin


def test_voiding_from_the_review_page_leaves_the_board_and_rates_the_day_again(
    scouted: tuple[DailyChallenge, int, Browser],
) -> None:
    challenge, main_attempt, main = rated(scouted)
    admin = signed_in_admin("op-q")
    review = Review.objects.get(attempt_id=main_attempt)
    page = admin.get(f"/admin/reviews/review/{review.pk}/change/")
    assert page.status_code == 200 and "scout_link" in page.content.decode()
    admin.post(
        "/admin/reviews/review/",
        {"action": "void", "_selected_action": [str(review.pk)]},
        follow=True,
    )
    review.refresh_from_db()
    assert review.status == Review.Status.VOIDED and review.decided_by is not None
    assert Attempt.objects.get(pk=main_attempt).voided
    board = json.loads(APIClient().get(f"/api/v1/leaderboards/challenges/{challenge.pk}/").content)
    assert "main-q" not in json.dumps(board)
    assert not RatingChange.objects.filter(challenge=challenge, player=main).exists()
    assert RatingChange.objects.filter(challenge=challenge, player__username="honest-q").exists()


def test_voiding_from_the_attempts_admin_rates_the_day_again_too(
    scouted: tuple[DailyChallenge, int, Browser],
) -> None:
    # Not only a review's void: the attempts' own admin action is a void like any other.
    challenge, main_attempt, main = rated(scouted)
    admin = signed_in_admin("op-a")
    admin.post(
        "/admin/games/attempt/",
        {"action": "void", "_selected_action": [str(main_attempt)]},
        follow=True,
    )
    assert Attempt.objects.get(pk=main_attempt).voided
    assert not RatingChange.objects.filter(challenge=challenge, player=main).exists()
    assert RatingChange.objects.filter(challenge=challenge, player__username="honest-q").exists()


def test_clearing_keeps_the_attempt_on_the_board(
    scouted: tuple[DailyChallenge, int, Browser],
) -> None:
    challenge, main_attempt, _ = scouted
    admin = Client()
    admin.force_login(User.objects.create_superuser("op-c", "op@example.com", "pw-op-c-1"))
    review = Review.objects.get(attempt_id=main_attempt)
    admin.post(
        "/admin/reviews/review/",
        {"action": "clear", "_selected_action": [str(review.pk)]},
        follow=True,
    )
    review.refresh_from_db()
    assert review.status == Review.Status.CLEARED
    assert not Attempt.objects.get(pk=main_attempt).voided
    board = APIClient().get(f"/api/v1/leaderboards/challenges/{challenge.pk}/")
    assert "main-q" in board.content.decode()
