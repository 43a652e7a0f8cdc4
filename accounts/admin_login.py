"""``/admin/login/`` with a rate limit per client address and, apart, per username.

Without one, 40 wrong passwords in 13 s were followed by the right one, logged in. Each
posted attempt is counted twice, under its address and under the username it names
(``THROTTLE_ADMIN_LOGIN``, the project's sliding-window counters: core/throttles.py);
past either limit the attempt is refused with a 429 page that says which limit and how
long to wait, before the password is checked. The address is the connection's
(``REMOTE_ADDR``; forwarded headers count only from ``FORWARDED_ALLOW_IPS``).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from core.throttles import take_request

SCOPE = "admin_login"
PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _limit() -> tuple[int, int] | None:
    rates: dict[str, Any] = getattr(settings, "REST_FRAMEWORK", {}).get(
        "DEFAULT_THROTTLE_RATES", {}
    )
    rate = rates.get(SCOPE)
    if not rate:
        return None
    number, period = str(rate).split("/", 1)  # DRF's format: N/sec, N/min, N/hour, N/day
    return int(number), PERIOD_SECONDS[period[0]]


def _keys(request: HttpRequest) -> list[tuple[str, str]]:
    address = request.META.get("REMOTE_ADDR", "") or "unknown"
    username = str(request.POST.get("username", ""))[:150].strip().lower()
    # Hashed: a username may hold characters a cache key must not.
    named = hashlib.sha256(username.encode("utf-8", "replace")).hexdigest()[:32]
    return [
        ("this address", f"throttle_{SCOPE}_address_{address}"),
        ("this username", f"throttle_{SCOPE}_username_{named}"),
    ]


def _too_many(which: str, wait: float) -> HttpResponse:
    seconds = max(1, math.ceil(wait))
    message = f"Too many log-in attempts for {which}. Try again in {seconds} seconds."
    page = (
        "<!doctype html><html lang='en'><head><title>Too many log-in attempts</title></head>"
        f"<body><h1>Too many log-in attempts</h1><p>{escape(message)}</p></body></html>"
    )
    response = HttpResponse(page, status=429)
    response["Retry-After"] = str(seconds)
    return response


@csrf_protect
@never_cache
def rate_limited_admin_login(request: HttpRequest) -> HttpResponse:
    limit = _limit()
    if request.method == "POST" and limit is not None:
        cache = caches["default"]
        now = time.time()
        for which, key in _keys(request):
            wait = take_request(cache, key, limit[0], limit[1], now)
            if wait is not None:
                return _too_many(which, wait)
    return admin.site.login(request)
