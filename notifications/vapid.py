"""The server's VAPID key pair (RFC 8292): the private key from the settings, the public one
(the browsers' applicationServerKey) derived from it, and a new pair for `push_keys`."""

from __future__ import annotations

import base64
import time
from functools import lru_cache

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid02

TOKEN_SECONDS = 12 * 3600  # a signed token is good for this long (RFC 8292 allows 24 h)


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def new_private_key() -> str:
    """A fresh P-256 private key as base64url of its 32 raw bytes (VAPID_PRIVATE_KEY)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def configured() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY)


@lru_cache(maxsize=4)
def _vapid(private_key: str) -> Vapid02:
    return Vapid02.from_raw(private_key.encode())


def server_vapid() -> Vapid02:
    """The configured key; ``LookupError`` when there is none (reminders are then off)."""
    if not configured():
        raise LookupError("no VAPID key: set VAPID_PRIVATE_KEY (docs/operations.md)")
    return _vapid(settings.VAPID_PRIVATE_KEY)


def public_key() -> str | None:
    """The applicationServerKey browsers subscribe with: base64url of the uncompressed
    point; None when no key is configured."""
    if not configured():
        return None
    point = server_vapid().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def authorization(audience: str, now: float | None = None) -> dict[str, str]:
    """The Authorization header for one push service (``audience``: its origin)."""
    claims = {
        "aud": audience,
        "sub": settings.VAPID_SUBJECT,
        "exp": int((now or time.time()) + TOKEN_SECONDS),
    }
    return dict(server_vapid().sign(claims))
