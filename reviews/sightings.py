"""Where an account plays from: the browser's device cookie, the client address (hashed),
the client (User-Agent). Recorded on sign-up, log-in, a token's issue and a daily's start.

The device cookie is a long random id in a signed, HttpOnly cookie, given to a browser the
first time one of these requests comes without it (a client that signs its requests with an
API token gets none: its device is blank). The address is stored only as an HMAC under the
SECRET_KEY, so the table holds no address.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from reviews.models import Sighting

DEVICE_COOKIE = "astro_device"
DEVICE_SALT = "reviews.device"
DEVICE_MAX_AGE = 2 * 365 * 24 * 3600  # two years
MINTED = "astro_device_minted"  # the request attribute holding a device id minted for it


def address_hash(address: str) -> str:
    """The client address as stored: HMAC-SHA256 under the SECRET_KEY ("" for none)."""
    if not address:
        return ""
    return salted_hmac("reviews.address", address, algorithm="sha256").hexdigest()


def _token_client(request: HttpRequest) -> bool:
    return "HTTP_AUTHORIZATION" in request.META


def device_for(request: HttpRequest, *, browser: bool) -> str:
    """The request's device id: its valid signed cookie, else (for a browser) one minted now
    and set on the response by ``DeviceCookieMiddleware``; "" for an API client."""
    device = request.get_signed_cookie(DEVICE_COOKIE, default="", salt=DEVICE_SALT)
    if device or not browser:
        return str(device)
    minted = getattr(request, MINTED, "")
    if not minted:
        minted = secrets.token_urlsafe(32)
        setattr(request, MINTED, minted)
    return str(minted)


def set_minted_device(request: HttpRequest, response: HttpResponse) -> None:
    """Give the browser the device cookie minted for this request, if one was."""
    minted = getattr(request, MINTED, "")
    if minted:
        response.set_signed_cookie(
            DEVICE_COOKIE,
            minted,
            salt=DEVICE_SALT,
            max_age=DEVICE_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )


def sighting_note(
    *, user: Any, device: str, address: str, client: str, now: dt.datetime | None = None
) -> Sighting:
    """Note that ``user`` was seen from this device id, client address (hashed here) and
    client: one row per combination, its last time updated."""
    now = now or timezone.now()
    sighting, _ = Sighting.objects.update_or_create(
        user=user,
        device=device,
        address=address_hash(address),
        client=client[:200],
        defaults={"last_seen_at": now},
        create_defaults={"first_seen_at": now, "last_seen_at": now},
    )
    return sighting


def sighting_record(request: HttpRequest, user: Any, *, browser: bool | None = None) -> Sighting:
    """Note that ``user`` made this request from its device, address and client.

    ``browser``: whether the request is a browser's (it gets a device cookie); by default,
    a request without an ``Authorization`` header is taken for one.
    """
    if browser is None:
        browser = not _token_client(request)
    return sighting_note(
        user=user,
        device=device_for(request, browser=browser),
        address=request.META.get("REMOTE_ADDR", ""),
        client=request.META.get("HTTP_USER_AGENT", ""),
    )
