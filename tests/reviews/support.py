"""Players as a browser or an API client would be, for the review tests: each with its own
address and client (User-Agent), through the HTTP API."""

from __future__ import annotations

from typing import Any

from django.test import Client

from games.models import Attempt, DailyChallenge

PASSWORD = "pw-review-Test-81"


class Browser:
    """One browser (its cookies: the device cookie among them) at one address."""

    def __init__(self, address: str, agent: str = "Mozilla/5.0 (X11) Firefox/140.0") -> None:
        self.client = Client(REMOTE_ADDR=address, HTTP_USER_AGENT=agent)

    def post(self, url: str, body: Any = None) -> Any:
        return self.client.post(url, body or {}, content_type="application/json")

    def sign_up(self, username: str) -> None:
        response = self.post("/api/v1/auth/signup/", {"username": username, "password": PASSWORD})
        assert response.status_code == 201, response.content

    def log_out(self) -> None:
        assert self.post("/api/v1/auth/logout/").status_code == 204

    def start(self, challenge: DailyChallenge) -> int:
        response = self.post(f"/api/v1/challenges/{challenge.pk}/start/")
        assert response.status_code == 201, response.content
        return int(response.json()["id"])

    def play(self, attempt_id: int, actions: list[str], offset: int = 0) -> None:
        response = self.post(
            f"/api/v1/attempts/{attempt_id}/actions/", {"offset": offset, "actions": actions}
        )
        assert response.status_code == 200, response.content

    def resign(self, attempt_id: int) -> None:
        assert self.post(f"/api/v1/attempts/{attempt_id}/resign/").status_code == 200


def scout(browser: Browser, challenge: DailyChallenge, username: str) -> int:
    """A spare account that deals through the whole stock at once, then resigns."""
    browser.sign_up(username)
    attempt_id = browser.start(challenge)
    browser.play(attempt_id, ["deal"] * 5)
    browser.resign(attempt_id)
    return attempt_id


def honest(browser: Browser, challenge: DailyChallenge, username: str, actions: int = 20) -> int:
    """A player who plays the first ``actions`` of the stored line, then resigns."""
    browser.sign_up(username)
    attempt_id = browser.start(challenge)
    line = [str(action) for action in challenge.deal.solution or []]
    browser.play(attempt_id, line[:actions])
    if not Attempt.objects.get(pk=attempt_id).is_over:
        browser.resign(attempt_id)
    return attempt_id
