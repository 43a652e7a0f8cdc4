"""Reviews: made when a ranked attempt ends, decided by staff (void or clear).

A review never changes a board: only staff's void does (games' ``attempt_void``, which
tells the boards and their watchers at once; the ratings of a rated day follow it).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.engine.errors import MoveError
from games.models import Attempt
from games.selectors import day_end, deal_board
from games.services.attempts import attempt_void
from reviews.foreknowledge import (
    FOREKNOWLEDGE_DAYS,
    FOREKNOWLEDGE_P,
    FOREKNOWLEDGE_P_HIGH,
    NO_DEALS,
    DealFits,
    deal_fits,
)
from reviews.models import GameFits, Review
from reviews.pace import pace_evidence
from reviews.scouting import SIGNUPS_CLOSE_SECONDS, linked_accounts, scout_shape, signup_gap_seconds

log = logging.getLogger(__name__)

Evidence = dict[str, Any]


def _item(kind: str, text: str, attempts: list[int], accounts: list[int]) -> Evidence:
    return {"kind": kind, "text": text, "attempt_ids": attempts, "account_ids": accounts}


def _linked_games(attempt: Attempt, links: dict[int, Any]) -> QuerySet[Attempt]:
    """The ended ranked games of these linked accounts on the attempt's daily."""
    return Attempt.objects.filter(
        player_id__in=list(links),
        challenge_id=attempt.challenge_id,
        kind=Attempt.Kind.RANKED,
        ended_at__isnull=False,
    )


def _scout_links(attempt: Attempt) -> tuple[list[Evidence], int]:
    """Evidence that a linked account scouted this daily before this attempt started, and
    its severity (0 when none)."""
    links = linked_accounts(attempt.player_id)
    if not links:
        return [], 0
    earlier = _linked_games(attempt, links).filter(started_at__lt=attempt.started_at)
    earlier = earlier.select_related("player")
    evidence: list[Evidence] = []
    severity = 0
    player = attempt.player
    challenge = attempt.challenge
    assert challenge is not None  # a ranked attempt has its challenge
    opened = day_end(challenge.date) - dt.timedelta(days=1)
    new_accounts: set[int] = set()
    for scout in earlier.order_by("started_at"):
        shape = scout_shape(scout)
        if shape is None:
            continue
        link = links[scout.player_id]
        weight = Review.Severity.HIGH if link.by_device else Review.Severity.MEDIUM
        text = (
            f"linked account {scout.player.username} ({link.describe()}) started this daily "
            f"{(attempt.started_at - scout.started_at).total_seconds():.0f} s earlier and {shape}"
        )
        evidence.append(_item("scout_link", text, [scout.pk], [scout.player_id]))
        gap = signup_gap_seconds(player, scout.player)
        if gap <= SIGNUPS_CLOSE_SECONDS:
            weight = Review.Severity.HIGH
            evidence.append(
                _item(
                    "signups_close",
                    f"{player.username} and {scout.player.username} signed up {gap:.0f} s apart",
                    [],
                    [player.pk, scout.player_id],
                )
            )
        for account in (player, scout.player):
            if account.date_joined >= opened:
                weight = Review.Severity.HIGH
                if account.pk in new_accounts:
                    continue
                new_accounts.add(account.pk)
                evidence.append(
                    _item(
                        "new_account",
                        f"{account.username} signed up after this daily opened",
                        [],
                        [account.pk],
                    )
                )
        severity = max(severity, int(weight))
    return evidence, severity


def _fits_of(attempt: Attempt) -> DealFits:
    """The game's deal fits, replayed once and kept (GameFits)."""
    kept = GameFits.objects.filter(attempt_id=attempt.pk).first()
    if kept is not None:
        return DealFits(tuple(kept.chances), kept.fits)
    try:
        fits = deal_fits(deal_board(attempt.deal), [str(action) for action in attempt.log])
    except MoveError as error:  # a stored log always replays; one made by hand may not
        log.warning(
            "attempt %s: its log does not replay (%s); its deals not weighed", attempt.pk, error
        )
        return NO_DEALS
    GameFits.objects.get_or_create(
        attempt_id=attempt.pk, defaults={"chances": list(fits.chances), "fits": fits.fits}
    )
    return fits


def _recent_fits(attempt: Attempt) -> tuple[list[int], DealFits]:
    """The player's other ended ranked games of the last FOREKNOWLEDGE_DAYS (not voided):
    their ids and their deal fits together (a game never weighed is replayed once)."""
    earlier = (
        Attempt.objects.filter(
            player_id=attempt.player_id,
            kind=Attempt.Kind.RANKED,
            voided=False,
            ended_at__isnull=False,
            started_at__gte=attempt.started_at - dt.timedelta(days=FOREKNOWLEDGE_DAYS),
        )
        .exclude(pk=attempt.pk)
        .order_by("-started_at")
    )
    ids = list(earlier.values_list("pk", flat=True))
    kept = {row.attempt_id: row for row in GameFits.objects.filter(attempt_id__in=ids)}
    together = NO_DEALS
    for game in earlier.exclude(pk__in=list(kept)).select_related("deal"):
        together += _fits_of(game)
    for row in kept.values():
        together += DealFits(tuple(row.chances), row.fits)
    return ids, together


def _foreknowledge(attempt: Attempt) -> tuple[list[Evidence], int]:
    """Evidence that the game (or the player's recent games together) was played as if it
    knew the stock, and its severity."""
    this = _fits_of(attempt)
    earlier, their_fits = _recent_fits(attempt)
    together = this + their_fits
    evidence: list[Evidence] = []
    p_value = 1.0
    if this.p_value < FOREKNOWLEDGE_P:
        p_value = this.p_value
        text = f"this game was played as if it knew the stock: {this.describe()}"
        evidence.append(_item("foreknowledge", text, [attempt.pk], [attempt.player_id]))
    if earlier and together.p_value < FOREKNOWLEDGE_P:
        p_value = min(p_value, together.p_value)
        text = (
            f"its {len(earlier) + 1} ranked games of the last {FOREKNOWLEDGE_DAYS} days were "
            f"played as if they knew the stock: {together.describe()}"
        )
        ids = [attempt.pk, *earlier]
        evidence.append(_item("foreknowledge", text, ids, [attempt.player_id]))
    if not evidence:
        return [], 0
    high = p_value < FOREKNOWLEDGE_P_HIGH
    return evidence, int(Review.Severity.HIGH if high else Review.Severity.MEDIUM)


def review_attempt(*, attempt_id: int) -> Review | None:
    """Gather the evidence against an ended ranked attempt and file (or update) its review;
    None when there is none. A review staff decided stays as they left it."""
    attempt = (
        Attempt.objects.select_related("player", "challenge", "deal").filter(pk=attempt_id).first()
    )
    if attempt is None or attempt.kind != Attempt.Kind.RANKED or not attempt.is_over:
        return None
    if attempt.voided:
        return None
    evidence, severity = _scout_links(attempt)
    knew, knew_severity = _foreknowledge(attempt)
    evidence += knew
    severity = max(severity, knew_severity)
    if attempt.flagged:
        evidence.append(_item("pace", attempt.flag_reason, [attempt.pk], [attempt.player_id]))
        severity = max(severity, int(Review.Severity.LOW))
    even = pace_evidence(attempt.action_times)
    if even is not None:
        evidence.append(_item("pace_stats", even, [attempt.pk], [attempt.player_id]))
        severity = max(severity, int(Review.Severity.LOW))
    if not evidence:
        return None
    with transaction.atomic():
        review, created = Review.objects.select_for_update().get_or_create(
            attempt=attempt, defaults={"severity": severity, "evidence": evidence}
        )
        if not created and review.status == Review.Status.OPEN:
            review.severity, review.evidence = severity, evidence
            review.save(update_fields=["severity", "evidence", "updated_at"])
    log.info("attempt %s under review (severity %s)", attempt.pk, review.severity)
    return review


def reviews_after_attempt_end(*, attempt_id: int) -> list[Review]:
    """An attempt ended: review it, and, when it has the scout's shape, the ended attempts of
    linked accounts that started the same daily after it."""
    reviews = [review_attempt(attempt_id=attempt_id)]
    attempt = Attempt.objects.filter(pk=attempt_id, kind=Attempt.Kind.RANKED).first()
    if attempt is not None and scout_shape(attempt) is not None:
        links = linked_accounts(attempt.player_id)
        later = (
            _linked_games(attempt, links)
            .filter(started_at__gt=attempt.started_at)
            .values_list("pk", flat=True)
        )
        reviews += [review_attempt(attempt_id=pk) for pk in later]
    return [review for review in reviews if review is not None]


def reviews_after_day_closed(*, challenge_ids: list[int]) -> list[Review]:
    """The day's close ran for these dailies: review each ranked attempt the day's end
    closed, as if its player had ended it (a main account that leaves its game to the close
    is still seen)."""
    closed = Attempt.objects.filter(
        challenge_id__in=challenge_ids,
        kind=Attempt.Kind.RANKED,
        end_reason=Attempt.EndReason.DAY_CLOSED,
    ).values_list("pk", flat=True)
    reviews = [review_attempt(attempt_id=pk) for pk in closed.order_by("pk")]
    return [review for review in reviews if review is not None]


def _decide(review: Review, status: str, by: Any, now: dt.datetime) -> None:
    review.status, review.decided_by, review.decided_at = status, by, now
    review.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])


def review_void(*, review_id: int, by: Any, now: dt.datetime | None = None) -> Review:
    """Staff agree: the attempt is voided (off the boards, watchers told at once; when its
    day is already rated, the ratings follow the void: leaderboards/ratings/receivers.py)."""
    now = now or timezone.now()
    review = Review.objects.select_related("attempt__challenge").get(pk=review_id)
    attempt = review.attempt
    name = by.get_username() if by is not None else "staff"
    kinds = ", ".join(sorted({item["kind"] for item in review.evidence}))
    attempt_void(attempt_id=attempt.pk, reason=f"voided by {name} on review ({kinds})", now=now)
    _decide(review, Review.Status.VOIDED, by, now)
    return review


def review_clear(*, review_id: int, by: Any, now: dt.datetime | None = None) -> Review:
    """Staff find nothing wrong: the review leaves the open queue; the attempt is untouched."""
    review = Review.objects.get(pk=review_id)
    _decide(review, Review.Status.CLEARED, by, now or timezone.now())
    return review
