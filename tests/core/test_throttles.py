"""Rate limits (core/throttles.py): sliding-window counts in Redis and in local memory.

The API tests check the 429 answer end to end (tests/games/test_api_attempts.py,
tests/accounts/test_auth_api.py); these drive the throttle over time, with a clock of
their own, against both caches it supports.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.test import RequestFactory

from core import throttles
from core.redis_cache import SharedRedisCache
from core.throttles import AddressRateThrottle, RequestLease, WindowRateThrottle
from tests.factories import make_player

pytestmark = pytest.mark.django_db


class View:
    throttle_scope = "actions"


@pytest.fixture(params=["redis", "locmem"])
def cache_kind(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    if request.param == "redis":
        if not django_settings.REDIS_URL:
            pytest.skip("needs Redis: set REDIS_URL")
        backend = {
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": django_settings.REDIS_URL,
            "KEY_PREFIX": f"test-throttle-{uuid.uuid4()}",
        }
    else:
        backend = {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-throttle-{uuid.uuid4()}",
        }
    settings.CACHES = {"default": backend}  # a fresh prefix or location: no counts carried
    yield request.param


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def asker(rate: str, clock: Clock, monkeypatch: pytest.MonkeyPatch, user: Any = None) -> Any:
    monkeypatch.setitem(WindowRateThrottle.THROTTLE_RATES, "actions", rate)
    request = RequestFactory().post("/api/v1/attempts/1/actions/")
    request.user = user or AnonymousUser()

    def ask() -> tuple[bool, float | None]:
        throttle = WindowRateThrottle()
        throttle.timer = clock
        allowed = throttle.allow_request(request, View())  # type: ignore[arg-type]
        return allowed, throttle.wait()

    return ask


def test_the_rate_is_allowed_and_the_next_request_refused_with_a_wait(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(6_000_000.0)  # the start of a minute window
    ask = asker("3/min", clock, monkeypatch)
    assert [ask()[0] for _ in range(3)] == [True, True, True]
    allowed, wait = ask()
    # The estimate takes the window's 3 as spread over it: the 4th fits 20 s into the next
    # window (3 x 40/60 + 1 = 3), not at once when it opens.
    assert not allowed and wait == pytest.approx(80)
    if cache_kind == "redis":
        assert isinstance(caches["default"], SharedRedisCache)


def test_waiting_the_given_time_is_enough_and_refusals_are_not_counted(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(6_000_000.0 + 30)  # half-way through a window
    ask = asker("5/min", clock, monkeypatch)
    assert all(ask()[0] for _ in range(5))
    refusals = [ask() for _ in range(20)]  # hammering while refused
    assert not any(allowed for allowed, _ in refusals)
    wait = refusals[-1][1]
    assert wait is not None and wait > 0
    clock.now += wait - 0.5
    assert not ask()[0], "not before the wait is over"
    clock.now += 0.6
    assert ask()[0], "the refused requests were not counted"


def test_the_previous_window_weighs_in_then_fades(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(6_000_000.0 + 50)  # late in a window
    ask = asker("10/min", clock, monkeypatch)
    assert all(ask()[0] for _ in range(10))
    clock.now += 15  # 5 s into the next window: the last one still weighs 55/60
    assert not ask()[0]
    clock.now += 54  # 59 s in: it weighs 1/60
    assert all(ask()[0] for _ in range(9))


def test_each_player_has_a_count_of_their_own(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch, django_user_model: Any
) -> None:
    clock = Clock(6_000_000.0)
    one = django_user_model.objects.create_user(username="one", password="x-Long-pass-9")
    two = django_user_model.objects.create_user(username="two", password="x-Long-pass-9")
    ask_one = asker("2/min", clock, monkeypatch, one)
    ask_two = asker("2/min", clock, monkeypatch, two)
    assert [ask_one()[0] for _ in range(3)] == [True, True, False]
    assert [ask_two()[0] for _ in range(3)] == [True, True, False]


def test_the_address_throttle_counts_by_address_even_when_signed_in(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch, django_user_model: Any
) -> None:
    monkeypatch.setitem(WindowRateThrottle.THROTTLE_RATES, "login", "2/min")
    user = django_user_model.objects.create_user(username="three", password="x-Long-pass-9")
    clock = Clock(6_000_000.0)

    class Login:
        throttle_scope = "login"

    def ask(signed_in: bool) -> bool:
        request = RequestFactory().post("/api/v1/auth/login/", REMOTE_ADDR="10.0.0.7")
        request.user = user if signed_in else AnonymousUser()
        throttle = AddressRateThrottle()
        throttle.timer = clock
        return throttle.allow_request(request, Login())  # type: ignore[arg-type]

    assert [ask(False), ask(True), ask(True)] == [True, True, False]


def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per count taken from the shared counter (``take_request``) from now on."""
    calls: list[int] = []
    real = throttles.take_request

    def counted(*args: Any, **kwargs: Any) -> float | None:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(throttles, "take_request", counted)
    return calls


def test_a_lease_takes_requests_from_the_shared_counter_a_few_at_a_time(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lease (RequestLease) and requests counted one by one share one count:
    together they never get more than the limit, and the lease goes one by one when the
    counter has no room for a whole lease."""
    cache = caches["default"]
    clock = Clock(1_000_020.0)  # 20 s into a 60 s window
    player = make_player("lea")
    http = asker("10/min", clock, monkeypatch, user=player)
    lease = RequestLease(f"throttle_actions_{player.pk}", limit=10, duration=60, size=4)
    calls = round_trips(monkeypatch)
    assert [lease.take(cache, clock.now) for _ in range(4)] == [None] * 4
    assert len(calls) == 1  # one round trip for four requests
    for _ in range(4):
        assert http()[0]  # 8 counted now
    # no room for a lease of 4: one at a time, exactly
    assert lease.take(cache, clock.now) is None
    assert lease.take(cache, clock.now) is None
    wait = lease.take(cache, clock.now)
    assert wait is not None and wait > 0
    assert http() == (False, http()[1])
    # a lease is good for one duration at most
    old = RequestLease("throttle_actions_8", limit=100, duration=60, size=5)
    assert old.take(cache, clock.now) is None and old.left == 4
    calls.clear()
    assert old.take(cache, clock.now + 61) is None
    assert len(calls) == 1


def test_a_signed_in_players_requests_are_counted_a_lease_at_a_time(
    cache_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At two or more requests a second, a signed-in player's requests are taken from the
    counter a second's worth at a time: one round trip for a lease, and the limit still
    holds to the request (an anonymous client's are counted one by one)."""
    clock = Clock(6_000_000.0 + 30)
    player = make_player("leased")
    ask = asker("240/min", clock, monkeypatch, user=player)  # a lease is 4 requests
    calls = round_trips(monkeypatch)
    assert all(ask()[0] for _ in range(8))
    assert len(calls) == 2  # two leases of four
    assert all(ask()[0] for _ in range(240 - 8))
    allowed, wait = ask()
    assert not allowed and wait is not None and wait > 0  # the 241st of the minute
    calls.clear()
    anonymous = asker("240/min", clock, monkeypatch)
    assert all(anonymous()[0] for _ in range(3))
    assert len(calls) == 3
