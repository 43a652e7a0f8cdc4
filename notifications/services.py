"""A player's subscriptions and choices, written as one transaction each."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.db import transaction

from notifications.models import PushSubscription, ReminderSettings

MAX_SUBSCRIPTIONS = 10  # browsers per player; a new one past this replaces the oldest
P256DH_BYTES, AUTH_BYTES = 65, 16


def b64url_decode(text: str) -> bytes:
    """base64url with or without its padding; ``ValueError`` if it is not."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError("not base64url") from error


def check_p256dh(text: str) -> None:
    """The browser's public key: an uncompressed point on P-256 (RFC 8291)."""
    raw = b64url_decode(text)
    if len(raw) != P256DH_BYTES or raw[0] != 4:
        raise ValueError(f"not an uncompressed P-256 point ({P256DH_BYTES} bytes)")
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)


def check_auth(text: str) -> None:
    if len(b64url_decode(text)) != AUTH_BYTES:
        raise ValueError(f"not a {AUTH_BYTES}-byte secret")


def subscription_save(*, player: Any, endpoint: str, p256dh: str, auth: str) -> bool:
    """Keep the browser's subscription for ``player``; True when it is new. An endpoint
    known under another player is now this one's (the browser signed in as someone else)."""
    with transaction.atomic():
        _, created = PushSubscription.objects.select_for_update().update_or_create(
            endpoint=endpoint, defaults={"player": player, "p256dh": p256dh, "auth": auth}
        )
        extra = PushSubscription.objects.filter(player=player).order_by("-created_at", "-pk")
        surplus = list(extra.values_list("pk", flat=True)[MAX_SUBSCRIPTIONS:])
        if surplus:
            PushSubscription.objects.filter(pk__in=surplus).delete()
    return created


def subscription_delete(*, player: Any, endpoint: str) -> bool:
    """Forget the browser's subscription; False when the player had none at that address."""
    deleted, _ = PushSubscription.objects.filter(player=player, endpoint=endpoint).delete()
    return deleted > 0


def reminder_settings(player: Any) -> ReminderSettings:
    """The player's choices (the defaults, unsaved, when they never chose)."""
    return ReminderSettings.objects.filter(player=player).first() or ReminderSettings(player=player)


def reminder_settings_update(*, player: Any, changes: dict[str, Any]) -> ReminderSettings:
    """Change the fields named in ``changes`` (already checked) and nothing else."""
    with transaction.atomic():
        choice, _ = ReminderSettings.objects.select_for_update().get_or_create(player=player)
        for field, value in changes.items():
            setattr(choice, field, value)
        choice.full_clean()
        choice.save()
    return choice
