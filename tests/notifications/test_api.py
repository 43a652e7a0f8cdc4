"""The reminders' API: a browser subscribes and unsubscribes, the player chooses kinds,
quiet hours and time zone; bad input is a 400 naming the field; nothing is pushed from a
request (the local push service hears nothing)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from notifications import vapid
from notifications.models import PushSubscription, ReminderSettings
from tests.factories import make_player
from tests.push_service import PushService

pytestmark = pytest.mark.django_db

API = "/api/v1/reminders/"


@pytest.fixture(autouse=True)
def _local_push_service_allowed(settings: Any) -> None:
    """Plain-HTTP push services on this machine are taken in development (DEBUG) only:
    pytest-django turns DEBUG off, the local push service needs it on."""
    settings.DEBUG = True


def signed_in(name: str) -> tuple[Any, Client]:
    player = make_player(name)
    client = Client()
    client.force_login(player)
    return player, client


def send(client: Client, method: str, path: str, body: Any) -> Any:
    return getattr(client, method)(path, json.dumps(body), content_type="application/json")


def error_fields(answer: Any) -> Any:
    assert answer.status_code == 400, answer.content
    return answer.json()["error"]["details"]


def test_a_browser_subscribes_and_unsubscribes_and_nothing_is_pushed_meanwhile(
    push_service: PushService,
) -> None:
    player, client = signed_in("ada")
    subscription = push_service.subscribe()

    first = send(client, "post", f"{API}subscriptions/", subscription)
    assert first.status_code == 201, first.content
    assert first.json()["subscriptions"] == 1
    assert first.json()["public_key"] == vapid.public_key()
    again = send(client, "post", f"{API}subscriptions/", subscription)
    assert again.status_code == 200 and again.json()["subscriptions"] == 1
    assert PushSubscription.objects.get().player == player
    assert push_service.received == []  # a request never pushes

    gone = send(client, "delete", f"{API}subscriptions/", {"endpoint": subscription["endpoint"]})
    assert gone.status_code == 204
    twice = send(client, "delete", f"{API}subscriptions/", {"endpoint": subscription["endpoint"]})
    assert twice.status_code == 404 and twice.json()["error"]["code"] == "not_found"


def test_another_player_on_the_same_browser_takes_its_subscription_over(
    push_service: PushService,
) -> None:
    subscription = push_service.subscribe()
    _, first = signed_in("one")
    second_player, second = signed_in("two")
    assert send(first, "post", f"{API}subscriptions/", subscription).status_code == 201
    assert send(second, "post", f"{API}subscriptions/", subscription).status_code == 200
    assert PushSubscription.objects.get().player == second_player


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"keys": {"p256dh": "bm90IGEga2V5", "auth": None}}, "keys"),
        ({"endpoint": "ftp://push.example/x"}, "endpoint"),
        ({"endpoint": "http://push.example.org/x"}, "endpoint"),  # not HTTPS, not local
    ],
)
def test_a_bad_subscription_is_refused_naming_the_field(
    push_service: PushService, change: dict[str, Any], field: str
) -> None:
    _, client = signed_in("bad")
    body = {**push_service.subscribe(), **change}
    details = error_fields(send(client, "post", f"{API}subscriptions/", body))
    assert field in details, details
    assert not PushSubscription.objects.exists()


def test_a_key_not_on_the_curve_is_refused_naming_p256dh(push_service: PushService) -> None:
    _, client = signed_in("curve")
    body = push_service.subscribe()
    body["keys"]["p256dh"] = "BA" + "A" * 85  # 65 bytes starting 0x04, not a point
    details = error_fields(send(client, "post", f"{API}subscriptions/", body))
    assert "p256dh" in details["keys"], details


def test_the_player_chooses_kinds_quiet_hours_and_time_zone() -> None:
    player, client = signed_in("eve")
    defaults = client.get(API).json()
    assert defaults["deal_ready"] is True and defaults["time_zone"] == "UTC"
    assert defaults["quiet_from"] is None and defaults["subscriptions"] == 0

    changes = {
        "league_passed": False,
        "time_zone": "Europe/Paris",
        "quiet_from": "22:00",
        "quiet_until": "07:30",
        "streak_hours": 5,
    }
    answer = send(client, "put", API, changes)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["league_passed"] is False and body["deal_ready"] is True
    assert (body["quiet_from"], body["quiet_until"]) == ("22:00:00", "07:30:00")
    saved = ReminderSettings.objects.get(player=player)
    assert saved.time_zone == "Europe/Paris" and saved.streak_hours == 5


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"time_zone": "Mars/Olympus"}, "time_zone"),
        ({"quiet_from": "22:00"}, "quiet_until"),
        ({"streak_hours": 30}, "streak_hours"),
        ({"deal_ready": "perhaps"}, "deal_ready"),
    ],
)
def test_bad_choices_are_refused_naming_the_field_and_nothing_is_saved(
    body: dict[str, Any], field: str
) -> None:
    _, client = signed_in("bad")
    assert field in error_fields(send(client, "put", API, body))
    assert not ReminderSettings.objects.exists()


def test_signed_out_is_refused() -> None:
    client = Client()
    assert client.get(API).status_code in (401, 403)
    assert send(client, "post", f"{API}subscriptions/", {}).status_code in (401, 403)


def test_the_schema_documents_the_reminders() -> None:
    schema = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert {"get", "put"} <= set(schema["paths"]["/api/v1/reminders/"])
    assert {"post", "delete"} <= set(schema["paths"]["/api/v1/reminders/subscriptions/"])


def test_a_plain_http_push_service_is_refused_in_production(
    push_service: PushService, settings: Any
) -> None:
    settings.DEBUG = False
    _, client = signed_in("prod")
    details = error_fields(send(client, "post", f"{API}subscriptions/", push_service.subscribe()))
    assert "https://" in details["endpoint"][0]
