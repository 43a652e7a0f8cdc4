"""Rows the benches make (Django set up first): a verified deal as the day's challenge."""

from __future__ import annotations

import datetime as dt
from typing import Any


def verified_daily(date: dt.date, variant: str, seed: int, nonce: str = "bench") -> Any:
    """A verified deal of ``variant`` and ``seed``, as the challenge of ``date``."""
    from games.models import DailyChallenge, Deal, commitment_for

    deal = Deal.objects.create(
        variant=variant,
        seed=seed,
        nonce=nonce,
        commitment=commitment_for(variant, seed, nonce),
        rules_version=1,
        status=Deal.Status.VERIFIED,
    )
    return DailyChallenge.objects.create(date=date, variant=variant, deal=deal)
