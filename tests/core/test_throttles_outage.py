"""Rate limits during a Redis outage: fail open, one warning line, the game keeps serving.

Before, every throttled request was an HTML 500 while Redis was down (``bump_window``
raised ``ConnectionError``): 286 posts failed in 20 s. Here a redis-server of the test's
own is stopped under a player who keeps posting, then started again.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from django.core.cache import caches
from rest_framework.throttling import ScopedRateThrottle

from core import throttles
from games.models import Attempt
from tests.factories import make_player
from tests.games.api_support import client_for, solution_of, todays_challenge
from tests.own_redis import OwnRedis, own_redis

__all__ = ["own_redis"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def counted_on(own_redis: OwnRedis, settings: Any, monkeypatch: pytest.MonkeyPatch) -> OwnRedis:
    settings.CACHES = {
        "default": {
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": f"test-outage-{uuid.uuid4()}",
        }
    }
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "actions", "5/min")
    monkeypatch.setattr(throttles, "OUTAGE_RETRY_SECONDS", 0.0)  # retry at every request
    return own_redis


def test_a_redis_outage_lets_posts_through_with_one_warning_then_counting_resumes(
    counted_on: OwnRedis, caplog: pytest.LogCaptureFixture
) -> None:
    challenge = todays_challenge()
    client = client_for(make_player())
    start = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert start.status_code == 201  # counted: 1 of 5
    attempt = Attempt.objects.get(pk=start.json()["id"])
    solution = solution_of(attempt.deal)
    assert len(solution) > 18

    def post(offset: int) -> Any:
        return client.post(
            f"/api/v1/attempts/{attempt.pk}/actions/",
            {"offset": offset, "actions": [solution[offset]]},
            format="json",
        )

    counted_on.stop()
    with caplog.at_level(logging.INFO, logger="core.throttles"):
        answers = [post(offset).status_code for offset in range(12)]  # past the 5/min rate
    assert answers == [200] * 12, "the game keeps serving, uncounted"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "fail open" in warnings[0].getMessage()
    attempt.refresh_from_db()
    assert attempt.action_count == 12

    counted_on.start()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="core.throttles"):
        answers = [post(12 + n).status_code for n in range(6)]
    assert answers[-1] == 429, answers  # counted again: the rate holds
    assert any("counted again" in r.getMessage() for r in caplog.records)
    assert caches["default"].get("nothing") is None
