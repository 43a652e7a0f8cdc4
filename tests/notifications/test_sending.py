"""Reminders sent for real over HTTP to a local push service that follows RFC 8030
(tests/push_service.py): it decrypts each message with the subscription's own private key
and auth secret (RFC 8291 aes128gcm) and verifies the VAPID token (RFC 8292), as a browser
and a push service would. The browsers' push services (FCM, autopush, Apple's) cannot be
reached from here; what they add (delivery to a device) is not tested."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games.models import Attempt
from leaderboards.models import League, LeagueMember
from notifications import vapid
from notifications.kinds import Kind
from notifications.models import PushSubscription, ReminderSent, ReminderSettings
from notifications.sending import send_reminders
from rooms.models import Room, Seat
from tests.dead_port import dead_port
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import make_attempt
from tests.notifications.conftest import subscribe
from tests.push_service import PushService

pytestmark = pytest.mark.django_db

MORNING = dt.datetime(2031, 3, 4, 6, 30, tzinfo=dt.UTC)


def only(kind: Kind) -> dict[Kind, Any]:
    from notifications.reminders import FINDERS

    return {kind: FINDERS[kind]}


def test_the_deal_ready_reminder_arrives_encrypted_and_signed_once_a_day(
    push_service: PushService,
) -> None:
    daily = make_challenge(MORNING.date())
    alice, bob = make_player("alice"), make_player("bob")
    endpoint = subscribe(push_service, alice)
    subscribe(push_service, bob)
    Attempt.objects.create(  # bob has started today's daily: no reminder for him
        player=bob, deal=daily.deal, challenge=daily, kind="ranked", started_at=MORNING
    )

    done = send_reminders(MORNING, only(Kind.DEAL_READY))

    assert done["deal_ready"]["sent"] == 1
    assert push_service.refused == []
    (got,) = push_service.received
    assert push_service.messages_for(endpoint) == [
        {
            "kind": "deal_ready",
            "title": "Today's deal is ready",
            "body": "A new daily deal is open.",
            "url": "/",
        }
    ]
    assert got.vapid_key == vapid.public_key()
    assert got.vapid_claims["sub"] == "mailto:operators@astrocyte.example"
    assert got.ttl > 0
    # Nothing about the deal: not its seed, nonce or commitment.
    for secret in (str(daily.deal.seed), daily.deal.nonce, daily.deal.commitment):
        assert secret not in str(got.message)

    # At most one a day: the next runs of the beat send nothing more.
    later = MORNING + dt.timedelta(hours=3)
    assert send_reminders(later, only(Kind.DEAL_READY))["deal_ready"] == {}
    assert len(push_service.received) == 1
    assert ReminderSent.objects.filter(player=alice, kind="deal_ready").count() == 1
    # Two days on, the row has been forgotten (only today's and yesterday's are asked about).
    send_reminders(MORNING + dt.timedelta(days=3), only(Kind.DEAL_READY))
    assert not ReminderSent.objects.filter(player=alice, day=MORNING.date()).exists()


def test_no_reminder_before_the_day_has_a_playable_deal(push_service: PushService) -> None:
    subscribe(push_service, make_player())
    assert send_reminders(MORNING, only(Kind.DEAL_READY))["deal_ready"] == {}
    assert push_service.received == []


def test_a_gone_subscription_is_deleted_and_a_failing_push_service_loses_no_reminder(
    push_service: PushService,
) -> None:
    make_challenge(MORNING.date())
    ann, ben, cid = make_player("ann"), make_player("ben"), make_player("cid")
    gone = subscribe(push_service, ann, answer=410)
    lost = subscribe(push_service, ann, answer=404)
    ann_phone = subscribe(push_service, ann)
    broken = subscribe(push_service, ben, answer=500)  # ben's push service is failing
    subscribe(push_service, cid)

    done = send_reminders(MORNING, only(Kind.DEAL_READY))["deal_ready"]

    assert done["sent"] == 2 and done["given_back"] == 1 and done["subscriptions_deleted"] == 2
    assert push_service.messages_for(ann_phone) and len(push_service.received) == 2
    endpoints = set(PushSubscription.objects.values_list("endpoint", flat=True))
    assert gone not in endpoints and lost not in endpoints and broken in endpoints
    # ben's reminder was given back, not recorded as sent...
    assert not ReminderSent.objects.filter(player=ben).exists()

    # ...so the next run sends it once his push service answers again, and only his.
    del push_service.answers[broken.rsplit("/", 1)[-1]]
    again = send_reminders(MORNING + dt.timedelta(minutes=1), only(Kind.DEAL_READY))
    assert again["deal_ready"]["sent"] == 1
    assert push_service.messages_for(broken) and len(push_service.received) == 3


def test_a_push_service_that_cannot_be_reached_costs_the_others_nothing(
    push_service: PushService,
) -> None:
    make_challenge(MORNING.date())
    ann, ben = make_player("ann"), make_player("ben")
    keys = push_service.subscribe()["keys"]
    subscribe(push_service, ben)
    with dead_port() as port:
        PushSubscription.objects.create(
            player=ann,
            endpoint=f"http://127.0.0.1:{port}/push/nobody",
            p256dh=keys["p256dh"],
            auth=keys["auth"],
        )
        done = send_reminders(MORNING, only(Kind.DEAL_READY))["deal_ready"]
    assert done["sent"] == 1 and done["given_back"] == 1
    assert len(push_service.received) == 1


def test_quiet_hours_are_the_players_own_and_hold_the_reminder_until_they_end(
    push_service: PushService,
) -> None:
    make_challenge(MORNING.date())
    kiri = make_player("kiri")
    subscribe(push_service, kiri)
    # 06:30 UTC is 19:30 in Auckland (NZDT, UTC+13 in March): inside 19:00-08:00 there.
    ReminderSettings.objects.create(
        player=kiri, time_zone="Pacific/Auckland", quiet_from=dt.time(19), quiet_until=dt.time(8)
    )
    held = send_reminders(MORNING, only(Kind.DEAL_READY))["deal_ready"]
    assert held == {"quiet": 1} and push_service.received == []
    # 19:30 UTC is 08:30 the next morning there: quiet hours over, the reminder goes.
    sent = send_reminders(MORNING.replace(hour=19), only(Kind.DEAL_READY))["deal_ready"]
    assert sent["sent"] == 1 and len(push_service.received) == 1


def test_a_kind_switched_off_is_not_sent(push_service: PushService) -> None:
    make_challenge(MORNING.date())
    player = make_player()
    subscribe(push_service, player)
    ReminderSettings.objects.create(player=player, deal_ready=False)
    assert send_reminders(MORNING, only(Kind.DEAL_READY))["deal_ready"] == {}
    assert push_service.received == []


def test_the_streak_reminder_comes_in_the_last_hours_of_an_unplayed_day(
    push_service: PushService,
) -> None:
    yesterday = make_challenge(MORNING.date() - dt.timedelta(days=1), variant="astrocyte")
    make_challenge(MORNING.date(), variant="astrocyte")
    player = make_player("sam")
    endpoint = subscribe(push_service, player)
    make_attempt(yesterday, player, won=True, ended_at=MORNING - dt.timedelta(hours=20))
    ReminderSettings.objects.create(player=player, streak_hours=3)

    noon = MORNING.replace(hour=12)
    assert send_reminders(noon, only(Kind.STREAK_ENDING))["streak_ending"] == {}
    evening = MORNING.replace(hour=21, minute=30)
    assert send_reminders(evening, only(Kind.STREAK_ENDING))["streak_ending"]["sent"] == 1
    (message,) = push_service.messages_for(endpoint)
    assert message["title"] == "Your 1-day streak ends in 3 hours"
    assert message["body"] == "You have not played today's Astrocyte daily yet."


def test_a_league_mate_who_passed_you_today_is_told_with_ranks_only(
    push_service: PushService,
) -> None:
    today = make_challenge(MORNING.date(), variant="spider1")
    lea, max_ = make_player("lea"), make_player("max")
    league = League.objects.create(name="Friday club", owner=lea, invite_code="code1")
    for member in (lea, max_):
        LeagueMember.objects.create(league=league, player=member)
    lea_phone = subscribe(push_service, lea)
    max_phone = subscribe(push_service, max_)
    make_attempt(today, lea, score=500, ended_at=MORNING - dt.timedelta(hours=2))
    make_attempt(today, max_, score=700, ended_at=MORNING - dt.timedelta(hours=1))

    done = send_reminders(MORNING, only(Kind.LEAGUE_PASSED))["league_passed"]

    assert done["sent"] == 1
    assert push_service.messages_for(max_phone) == []
    assert push_service.messages_for(lea_phone) == [
        {
            "kind": "league_passed",
            "title": "max passed you in Friday club",
            "body": "You are now #2 of 2 on today's board.",
            "url": f"/leagues/{league.pk}/",
        }
    ]


def test_the_players_seated_in_a_race_are_told_it_starts(push_service: PushService) -> None:
    deal = make_challenge(MORNING.date()).deal
    host, guest = make_player("host"), make_player("guest")
    room = Room.objects.create(
        code="RACE1",
        host=host,
        variant=deal.variant,
        seats=2,
        time_limit_minutes=5,
        status=Room.Status.RACING,
        deal=deal,
        starts_at=MORNING,
        ends_at=MORNING + dt.timedelta(minutes=5),
    )
    for player in (host, guest):
        Seat.objects.create(room=room, player=player, ready=True)
    guest_phone = subscribe(push_service, guest)

    done = send_reminders(MORNING - dt.timedelta(seconds=2), only(Kind.RACE_STARTING))
    assert done["race_starting"]["sent"] == 1
    assert push_service.messages_for(guest_phone) == [
        {
            "kind": "race_starting",
            "title": "Your race starts",
            "body": "The race in room RACE1 is on.",
            "url": "/rooms/RACE1/",
        }
    ]


def test_without_a_vapid_key_nothing_is_sent(push_service: PushService, settings: Any) -> None:
    settings.VAPID_PRIVATE_KEY = ""
    make_challenge(MORNING.date())
    subscribe(push_service, make_player())
    assert send_reminders(MORNING) == {}
    assert push_service.received == []
