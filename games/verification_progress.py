"""How far the solver has got with the deals being verified, for the pages that wait on one.

On a fresh install the home page has no daily until its first candidate is proven; it
shows this instead (``challenges_today``'s ``preparing``), and opens the day by itself
when the proof is done. The verifier (a worker, or the embedded run's background
verifier) writes each progress report to the cache (Redis with workers, so every web
process reads it; in-process in the embedded run, where the verifier is a thread of the
server); the pages read the phase, the positions searched and the seconds since the
verification began. Nothing here names a card or a seed: a deal is the variant being
prepared, nothing more.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.core.cache import cache

from games.models import Deal

log = logging.getLogger(__name__)

KEY = "deal-verification-progress:{}"
KEEP_SECONDS = 180  # a report outlives a stalled verifier by this much at most


def note_progress(deal_id: int, *, proven: bool, positions: int) -> None:
    """Keep the solver's latest report on ``deal_id``; a cache outage loses it, nothing more."""
    phase = "shortening" if proven else "proving"
    try:
        cache.set(KEY.format(deal_id), {"phase": phase, "positions": positions}, KEEP_SECONDS)
    except Exception:  # the cache is a convenience here: never fail a verification for it
        log.debug("deal %s: progress not kept (cache unavailable)", deal_id, exc_info=True)


def _noted(deal_id: int) -> dict[str, Any] | None:
    try:
        found = cache.get(KEY.format(deal_id))
    except Exception:
        return None
    return found if isinstance(found, dict) else None


def preparing(variants: list[str], now: dt.datetime) -> list[dict[str, Any]]:
    """For each of ``variants`` (today's missing dailies): where its next daily candidate is.

    ``phase``: ``waiting`` (no candidate drawn yet), ``queued`` (drawn, waiting for the
    verifier), ``proving`` (the solver is searching for a winning line) or ``shortening``
    (proven; looking for a shorter par); with ``seconds`` since the verification began and
    ``positions`` searched in this phase, when known.
    """
    found = []
    for variant in variants:
        candidates = Deal.objects.filter(
            variant=variant,
            pool=Deal.Pool.DAILY,
            retired=False,
            status__in=(Deal.Status.PENDING, Deal.Status.VERIFYING),
        )
        busy = (
            candidates.filter(status=Deal.Status.VERIFYING)
            .order_by("-verify_started_at")
            .values_list("pk", "verify_started_at")
            .first()
        )
        entry: dict[str, Any] = {"variant": variant, "phase": "waiting"}
        entry.update(seconds=None, positions=None)
        if busy is not None:
            deal_id, started = busy
            noted = _noted(deal_id) or {}
            entry["phase"] = noted.get("phase", "proving")
            entry["positions"] = noted.get("positions")
            if started is not None:
                entry["seconds"] = round(max(0.0, (now - started).total_seconds()), 1)
        elif candidates.exists():
            entry["phase"] = "queued"
        found.append(entry)
    return found
