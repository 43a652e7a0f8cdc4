"""The reminders' tests: a local push service (tests/push_service.py) and a VAPID key of
the test's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from notifications.models import PushSubscription
from notifications.vapid import new_private_key
from tests.push_service import PushService, start_push_service


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service, server = start_push_service()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def vapid_key(settings: Any) -> str:
    settings.VAPID_PRIVATE_KEY = new_private_key()
    settings.VAPID_SUBJECT = "mailto:operators@astrocyte.example"
    return str(settings.VAPID_PRIVATE_KEY)


def subscribe(service: PushService, player: Any, answer: int | None = None) -> str:
    """A browser of ``player`` subscribed at ``service`` (answering ``answer`` if given);
    its endpoint."""
    info = service.subscribe(answer)
    PushSubscription.objects.create(
        player=player,
        endpoint=info["endpoint"],
        p256dh=info["keys"]["p256dh"],
        auth=info["keys"]["auth"],
    )
    return str(info["endpoint"])
