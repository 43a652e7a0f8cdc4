"""What the midnight tests share (embedded beat, beat's entries on a worker, the browser):
one day (DAY) and the next, a player's open attempt, and what a player sees once the day
has rolled over, all through the public API."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from config.asgi import application
from games.models import Attempt, DailyChallenge, Deal
from games.services.deals import deal_create, deal_schedule, deal_verify
from tests.games.conftest import OTHER_QUICK_SEED, QUICK_SEED, QUICK_VARIANT

# A day far from the real one, so that no other test's "today" is in the way.
DAY = dt.date(2031, 3, 14)
NEXT_DAY = DAY + dt.timedelta(days=1)
MIDNIGHT = dt.datetime.combine(NEXT_DAY, dt.time(0), tzinfo=dt.UTC)
OPEN_ACTIONS = 3  # actions the player makes before leaving the attempt open


def at(seconds_from_midnight: float) -> dt.datetime:
    return MIDNIGHT + dt.timedelta(seconds=seconds_from_midnight)


def verified_deal(seed: int, variant: str = QUICK_VARIANT) -> Deal:
    deal = deal_create(variant=variant, seed=seed)
    deal = deal_verify(deal_id=deal.pk, seconds=20.0)
    assert deal.status == Deal.Status.VERIFIED, deal.last_error
    return deal


def daily_on(date: dt.date, seed: int = QUICK_SEED, variant: str = QUICK_VARIANT) -> DailyChallenge:
    """A verified daily on ``date`` (today or later on the test's clock)."""
    return deal_schedule(deal=verified_deal(seed, variant), date=date)


def next_days_daily() -> DailyChallenge:
    return daily_on(NEXT_DAY, OTHER_QUICK_SEED)


def start_and_leave_open(client: APIClient, challenge: DailyChallenge) -> int:
    """The player starts the ranked attempt, plays a few actions of the solution, and walks
    away: the attempt is left open. Returns its id."""
    started = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert started.status_code == 201, started.content
    attempt_id = int(started.json()["id"])
    actions = [str(action) for action in (challenge.deal.solution or [])[:OPEN_ACTIONS]]
    posted = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": 0, "actions": actions},
        format="json",
    )
    assert posted.status_code == 200, posted.content
    return attempt_id


def todays_challenge_ids(client: APIClient) -> tuple[str, list[int]]:
    body = client.get("/api/v1/challenges/today/").json()
    return body["date"], [challenge["id"] for challenge in body["challenges"]]


def assert_closed_and_ranked(client: APIClient, attempt_id: int, challenge_id: int) -> None:
    """The attempt left open is over (closed with the day, at 00:00, with the server's score)
    and on the day's board."""
    attempt = client.get(f"/api/v1/attempts/{attempt_id}/").json()
    assert attempt["over"] is True, attempt
    assert attempt["end_reason"] == Attempt.EndReason.DAY_CLOSED
    assert attempt["score"] is not None
    board = client.get(f"/api/v1/leaderboards/challenges/{challenge_id}/").json()
    assert [row["attempt_id"] for row in board["top"]] == [attempt_id]
    assert board["top"][0]["rank"] == 1
    assert board["top"][0]["score"] == attempt["score"]


def assert_public(client: APIClient, challenge: DailyChallenge) -> None:
    """Yesterday is public: seed, nonce and solution, matching the commitment."""
    body = client.get(f"/api/v1/challenges/{challenge.pk}/").json()
    assert body["open"] is False
    revealed = body["revealed"]
    assert revealed is not None
    deal = Deal.objects.get(pk=challenge.deal_id)
    assert revealed["seed"] == str(deal.seed_int)
    assert revealed["nonce"] == deal.nonce
    assert revealed["solution"] == list(deal.solution or [])


def assert_still_secret(client: APIClient, challenge: DailyChallenge) -> None:
    body = client.get(f"/api/v1/challenges/{challenge.pk}/").json()
    assert body["open"] is True and body["revealed"] is None, body


def board_of(message: dict[str, Any]) -> list[tuple[int, Any]]:
    return [(row["attempt_id"], row["score"]) for row in message["top"]]


# --- a watcher of a day's board --------------------------------------------------------

ORIGIN = (b"origin", b"http://localhost")


async def watch(challenge_id: int) -> WebsocketCommunicator:
    watcher = WebsocketCommunicator(
        application, f"/ws/challenges/{challenge_id}/", headers=[ORIGIN]
    )
    connected, _ = await watcher.connect()
    assert connected
    assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"
    return watcher


async def next_board(watcher: WebsocketCommunicator, timeout: float) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        message = await watcher.receive_json_from(timeout=max(0.01, deadline - loop.time()))
        if message["type"] == "board":
            return dict(message)
