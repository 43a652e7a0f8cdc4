"""Attempts: start, play (batches of actions), resign, close with the day, void.

The stored log is the truth. A batch is decided by the engine
(``games.services.batches.play_batch``) on the game so far and written one of two ways:
by a caller that holds a ``PlayCursor`` of the attempt (the play socket, an HTTP process's
held cursors), decided on the board the cursor holds and written by one conditional
``UPDATE`` that takes effect only while the row still holds the log the cursor saw; else
(and whenever that update finds the row changed) replayed from the stored log under
``SELECT … FOR UPDATE`` of the attempt row. Either way two batches of one attempt are
serialized and the second sees the first's actions. Times are the server's; nothing the
client says about score or time is used. Signals go out only after the write commits.
"""

from __future__ import annotations

import copy
import datetime as dt
import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine
from games.errors import (
    AttemptOverError,
    ChallengeNotOpenError,
    GamesError,
    NotFoundError,
)
from games.metrics import count_action_batch
from games.models import Attempt, DailyChallenge, Deal
from games.selectors import (
    attempt_board,
    day_end,
    day_is_closed,
    deal_board,
    utc_today,
    visible_challenge,
)
from games.services.attempt_rows import (
    lock_attempt,
    save_progress,
    save_progress_if_unchanged,
)
from games.services.batches import Batch, GameSoFar, play_batch
from games.services.board_counts import board_counts_follow, board_key
from games.services.plausibility import plausibility_flags
from games.services.practice_deals import practice_deal_claim
from games.signals import (
    attempt_finished,
    attempt_played,
    attempt_progressed,
    attempt_voided,
    day_closed,
)

log = logging.getLogger(__name__)


def _send_on_commit(signal: Any, attempt: Attempt) -> None:
    # The challenge only for a ranked attempt: an archive practice names its daily but is on
    # no board, so nobody watching that day hears of it.
    ranked = attempt.kind == Attempt.Kind.RANKED
    attempt_id, challenge_id = attempt.pk, attempt.challenge_id if ranked else None
    transaction.on_commit(
        lambda: signal.send(
            sender=Attempt, attempt_id=attempt_id, challenge_id=challenge_id, attempt=attempt
        )
    )


def _locked(attempt_id: int, player: Any = None) -> Attempt:
    """The attempt row, locked until the transaction ends (only the row: not its deal's)."""
    if player is None:
        attempt = lock_attempt(attempt_id, by_player=False)
    else:
        attempt = lock_attempt(attempt_id, getattr(player, "pk", None), by_player=True)
        if attempt is not None:
            attempt.player = player  # the row was read as this player's: no query for it
    if attempt is None:
        raise NotFoundError("No such attempt.")
    return attempt


# --- starting -------------------------------------------------------------------------


def attempt_start_ranked(
    *, player: Any, challenge_id: int, now: dt.datetime | None = None
) -> tuple[Attempt, bool]:
    """The player's one ranked attempt at today's challenge: (attempt, created)."""
    now = now or timezone.now()
    challenge = visible_challenge(challenge_id, now)
    today = utc_today(now)
    if challenge is None:
        raise NotFoundError("No such challenge.")
    existing = Attempt.objects.filter(
        player=player, challenge=challenge, kind=Attempt.Kind.RANKED
    ).first()
    if existing is not None:
        return existing, False
    if challenge.date != today:
        raise ChallengeNotOpenError(
            f"The {challenge.variant} challenge of {challenge.date} is closed: "
            "ranked attempts start only on the day of their challenge."
        )
    if not challenge.deal.is_playable:
        raise ChallengeNotOpenError("This challenge's deal has been withdrawn.")
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create(
                player=player,
                deal=challenge.deal,
                challenge=challenge,
                kind=Attempt.Kind.RANKED,
                started_at=now,
                deals_left=engine.get_variant(challenge.variant).stock_deals,
            )
    except IntegrityError:
        # A simultaneous start won the race (the one-ranked-attempt constraint): use it.
        return Attempt.objects.get(
            player=player, challenge=challenge, kind=Attempt.Kind.RANKED
        ), False
    log.info("attempt %s: ranked start on challenge %s", attempt.pk, challenge.pk)
    # Watchers see a new player among those playing as soon as the clock starts.
    _send_on_commit(attempt_progressed, attempt)
    return attempt, True


def attempt_start_practice(
    *, player: Any, variant: str | None = None, now: dt.datetime | None = None
) -> Attempt:
    """An unranked attempt on a random verified deal of the practice pool (never one in a
    running race: games/services/practice_deals.py)."""
    with transaction.atomic():
        deal = practice_deal_claim(variant=variant)
        return Attempt.objects.create(
            player=player,
            deal=deal,
            kind=Attempt.Kind.PRACTICE,
            started_at=now or timezone.now(),
            deals_left=engine.get_variant(deal.variant).stock_deals,
        )


def attempts_start_race(
    *, players: list[Any], deal: Deal, starts_at: dt.datetime, play_until: dt.datetime
) -> list[Attempt]:
    """One practice attempt a racer on ``deal``, every clock starting at ``starts_at``
    (the race's start signal), sealed (cards secret) until ``attempts_unseal``."""
    deals_left = engine.get_variant(deal.variant).stock_deals
    return [
        Attempt.objects.create(
            player=player,
            deal=deal,
            kind=Attempt.Kind.PRACTICE,
            started_at=starts_at,
            play_until=play_until,
            cards_sealed=True,
            deals_left=deals_left,
        )
        for player in players
    ]


def attempts_unseal(*, attempt_ids: list[int]) -> int:
    """The race is over for every racer: its attempts' cards are public as any practice's."""
    return Attempt.objects.filter(pk__in=attempt_ids, cards_sealed=True).update(cards_sealed=False)


# --- ending ----------------------------------------------------------------------------


def _finish(attempt: Attempt, board: engine.Board, reason: str, ended_at: dt.datetime) -> None:
    """End the attempt at ``board``: the server's score, the plausibility flags, the board
    counts, the signal."""
    counted_as = board_key(attempt)
    elapsed = float(attempt.action_times[-1]) if attempt.action_times else 0.0
    attempt.ended_at = ended_at
    attempt.end_reason = reason
    attempt.elapsed_seconds = elapsed
    attempt.action_count = len(attempt.log)
    attempt.score = engine.score(len(attempt.log), elapsed, board)
    attempt.won = board.is_won
    attempt.runs_completed = board.complete_foundations
    attempt.cards_turned_up = engine.cards_turned_up(board)
    attempt.deals_left = board.deals_left
    flags = plausibility_flags(attempt)
    if flags:
        attempt.flagged = True
        attempt.flag_reason = "; ".join(flags)[:200]
    attempt.save()
    board_counts_follow(counted_as, attempt)
    log.info(
        "attempt %s ended (%s): score %s in %.1f s, %s actions%s",
        attempt.pk,
        reason,
        attempt.score,
        elapsed,
        attempt.action_count,
        f", flagged: {attempt.flag_reason}" if flags else "",
    )
    _send_on_commit(attempt_finished, attempt)


DAY_OVER = "The day of this challenge is over: the attempt was closed with the position it reached."
TIME_UP = "The race's time limit is over: the attempt was resigned with the position it reached."


def _closing_due(attempt: Attempt, now: dt.datetime) -> tuple[str, dt.datetime, str] | None:
    """(end reason, end time, why) of an open attempt that must end now: a ranked one whose
    challenge's day is over, or a race's whose time limit has passed; None otherwise."""
    if attempt.is_over:
        return None
    challenge = attempt.challenge
    if (
        attempt.kind == Attempt.Kind.RANKED
        and challenge is not None
        and day_is_closed(challenge.date, now)
    ):
        return Attempt.EndReason.DAY_CLOSED, day_end(challenge.date), DAY_OVER
    if attempt.play_until is not None and now >= attempt.play_until:
        return Attempt.EndReason.RESIGNED, attempt.play_until, TIME_UP
    return None


def _close_if_due(attempt: Attempt, now: dt.datetime) -> str | None:
    """End a still-open attempt whose day or time limit is over (the caller holds the row
    lock); why it ended, or None when it stays open."""
    due = _closing_due(attempt, now)
    if due is None:
        return None
    reason, ended_at, why = due
    _finish(attempt, attempt_board(attempt), reason, ended_at)
    return why


def attempt_close_if_day_over(*, attempt: Attempt, now: dt.datetime | None = None) -> Attempt:
    """The attempt as a read must show it: closed first if its day (or its race's time) is
    over.

    Reads take no lock: only an open ranked attempt of a past day (rare: the beat task
    closes them at 00:00) or a race's past its time limit is locked, closed and read again.
    """
    now = now or timezone.now()
    if _closing_due(attempt, now) is None:
        return attempt
    with transaction.atomic():
        locked = _locked(attempt.pk)
        _close_if_due(locked, now)
    return locked


def attempts_close_day(*, now: dt.datetime | None = None) -> list[int]:
    """End every open ranked attempt of a past day with the position it reached, then tell
    the watchers of the day that just ended, and of any day whose attempts it closed.

    Each attempt in its own short transaction, re-checked under its lock: safe to run any
    time and twice, alongside players still posting. The watchers are told even when
    nothing was left open: a page that asked first closed its own attempt at 00:00 (the
    close of a touched attempt, ``attempt_close_if_day_over``), yet the other pages of that
    day, players' and bystanders', still hear it from here, once per close.
    """
    now = now or timezone.now()
    today = utc_today(now)
    open_ids = list(
        Attempt.objects.filter(
            kind=Attempt.Kind.RANKED,
            ended_at__isnull=True,
            challenge__date__lt=today,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    closed = []
    challenge_ids = set(
        DailyChallenge.objects.filter(date=today - dt.timedelta(days=1)).values_list(
            "pk", flat=True
        )
    )
    for attempt_id in open_ids:
        with transaction.atomic():
            attempt = _locked(attempt_id)
            if _close_if_due(attempt, now):
                closed.append(attempt_id)
                challenge_ids.add(attempt.challenge_id)  # type: ignore[arg-type]
    if closed:
        log.info("closed %s open ranked attempt(s) of past days", len(closed))
    if challenge_ids:
        transaction.on_commit(
            lambda: day_closed.send(sender=Attempt, challenge_ids=sorted(challenge_ids))
        )
    return closed


def attempts_close_time_up(*, attempt_ids: list[int], now: dt.datetime | None = None) -> list[int]:
    """Resign those of these race attempts still open past their time limit, each in its own
    short transaction under its lock (safe twice, and alongside their players' posts)."""
    now = now or timezone.now()
    due = Attempt.objects.filter(pk__in=attempt_ids, ended_at__isnull=True, play_until__lte=now)
    closed = []
    for attempt_id in due.order_by("pk").values_list("pk", flat=True):
        with transaction.atomic():
            if _close_if_due(_locked(attempt_id), now):
                closed.append(attempt_id)
    return closed


def attempt_resign(*, attempt_id: int, player: Any, now: dt.datetime | None = None) -> Attempt:
    now = now or timezone.now()
    refusal: GamesError | None = None
    with transaction.atomic():
        attempt = _locked(attempt_id, player)
        why = _close_if_due(attempt, now)
        if why is not None:
            refusal = AttemptOverError(why, details={"end_reason": attempt.end_reason})
        elif attempt.is_over:
            refusal = AttemptOverError(
                "This attempt is already over.", details={"end_reason": attempt.end_reason}
            )
        else:
            _finish(attempt, attempt_board(attempt), Attempt.EndReason.RESIGNED, now)
    if refusal is not None:
        raise refusal
    return attempt


# --- playing ---------------------------------------------------------------------------


def _game_so_far(
    attempt: Attempt, closed_why: str | None, known: tuple[int, engine.Board] | None = None
) -> GameSoFar:
    deal = attempt.deal
    return GameSoFar(
        known=known,
        dealt=lambda: deal_board(deal),
        log=attempt.log,
        action_times=attempt.action_times,
        started_at=attempt.started_at,
        over=attempt.is_over,
        end_reason=attempt.end_reason,
        closed_why=closed_why,
    )


class PlayCursor:
    """A long-lived caller's hold on one attempt between batches (the play socket keeps one):
    the attempt as its last accepted batch left it, and the board there.

    With it the next batch is decided on what it holds and written by one conditional
    statement, without the row lock (``save_progress_if_unchanged``); whenever that cannot
    be the whole story (someone else played meanwhile, the batch is refused, a retry, a
    win, a day or race time over) the batch takes the locked path, as without a cursor.
    """

    def __init__(self) -> None:
        self.attempt: Attempt | None = None
        self.board: engine.Board | None = None

    def hold(self, attempt: Attempt, board: engine.Board) -> None:
        if attempt.is_over:
            self.clear()
        else:
            self.attempt, self.board = attempt, board

    def clear(self) -> None:
        self.attempt = self.board = None


def _apply_batch(attempt: Attempt, batch: Batch, actions: list[str], now: dt.datetime) -> None:
    """The accepted batch onto the attempt's fields (not written)."""
    board = batch.board
    attempt.log = [*attempt.log, *actions]
    attempt.action_times = [*attempt.action_times, *([batch.elapsed] * len(actions))]
    attempt.action_count = len(attempt.log)
    attempt.last_action_at = now
    attempt.deals_left = board.deals_left
    attempt.runs_completed = board.complete_foundations
    attempt.cards_turned_up = engine.cards_turned_up(board)


def _announce_batch(attempt: Attempt, batch: Batch) -> None:
    # Every accepted batch: watchers see the action count, not only deals and runs home
    # (the live side pushes once per challenge and window, whatever the rate of batches).
    _send_on_commit(attempt_progressed, attempt)
    if attempt.is_race:
        _send_on_commit(attempt_played, attempt)


def _store_batch(attempt: Attempt, batch: Batch, actions: list[str], now: dt.datetime) -> None:
    """Write an accepted batch onto the locked attempt (ending it when it won); its signals
    go out after the commit."""
    _apply_batch(attempt, batch, actions, now)
    _announce_batch(attempt, batch)
    if batch.board.is_won:
        _finish(attempt, batch.board, Attempt.EndReason.WON, now)
    else:
        save_progress(attempt)


def _push_held(
    cursor: PlayCursor, player: Any, offset: int, actions: list[str], now: dt.datetime
) -> Batch | None:
    """The batch decided on what ``cursor`` holds and written without the lock; None when
    it must take the locked path instead (nothing written then)."""
    held, board = cursor.attempt, cursor.board
    if held is None or board is None or held.player_id != getattr(player, "pk", None):
        return None
    if _closing_due(held, now) is not None:
        return None
    stored = len(held.log)
    try:
        batch = play_batch(_game_so_far(held, None, (stored, board)), offset, actions, now)
    except GamesError:
        return None  # answered from the row itself, under its lock
    if batch.retry or batch.won:
        return None
    fresh = copy.copy(held)
    _apply_batch(fresh, batch, actions, now)
    if not save_progress_if_unchanged(fresh, stored):
        cursor.clear()  # someone else played (or it ended): the locked path sees how
        return None
    _announce_batch(fresh, batch)  # (no transaction: they go out now)
    cursor.hold(fresh, batch.board)
    return batch


def attempt_push_actions(
    *,
    attempt_id: int,
    player: Any,
    offset: int,
    actions: list[str],
    now: dt.datetime | None = None,
    cursor: PlayCursor | None = None,
) -> Batch:
    """Apply a batch of actions starting at ``offset`` of the stored log: the one path of
    both transports (the HTTP endpoint, the play socket).

    What the batch does is decided by ``games.services.batches.play_batch`` (a retry, a
    refusal, or accepted); here the write (the held cursor's conditional update, else under
    the row lock) and the signals after the commit.
    A ranked attempt whose day is over (or a race past its time) is closed first, and that
    is kept even though the batch is then refused. ``cursor``: what the caller holds of
    the attempt since its last batch (``PlayCursor``), which saves the lock and the replay.
    """
    actions = list(actions)
    given_now = now
    if cursor is not None and cursor.attempt is not None and cursor.attempt.pk == attempt_id:
        kind = cursor.attempt.kind
        # (no lock: the write is on condition that nobody wrote since the cursor's read)
        held = _push_held(cursor, player, offset, actions, given_now or timezone.now())
        if held is not None:
            count_action_batch(kind=kind, actions=len(actions), outcome=held, retry=False)
            return held
    refused: GamesError | None = None
    with transaction.atomic():
        attempt = _locked(attempt_id, player)
        stored = len(attempt.log)
        # The clock is read under the lock, so the stored times of one attempt never go back.
        now = given_now or timezone.now()
        why_closed = _close_if_due(attempt, now)
        try:
            batch = play_batch(_game_so_far(attempt, why_closed), offset, actions, now)
        except GamesError as error:
            refused = error  # raised after the commit: a closing just made is kept
        else:
            if not batch.retry:
                _store_batch(attempt, batch, actions, now)
    count_action_batch(
        kind=attempt.kind,
        actions=len(actions),
        outcome=refused or batch,
        retry=offset < stored,
    )
    if cursor is not None:
        if refused is None and not batch.retry:
            cursor.hold(attempt, batch.board)
        else:
            cursor.clear()
    if refused is not None:
        raise refused
    return batch


# --- admins ----------------------------------------------------------------------------


def attempt_void(*, attempt_id: int, reason: str, now: dt.datetime | None = None) -> Attempt:
    """Take an attempt off the boards (an admin's decision). Voiding twice changes nothing."""
    with transaction.atomic():
        attempt = _locked(attempt_id)
        if attempt.voided:
            return attempt
        counted_as = board_key(attempt)
        attempt.voided = True
        attempt.voided_at = now or timezone.now()
        attempt.void_reason = reason[:200]
        attempt.save(update_fields=["voided", "voided_at", "void_reason"])
        board_counts_follow(counted_as, attempt)
        _send_on_commit(attempt_voided, attempt)
    log.info("attempt %s voided: %s", attempt.pk, reason)
    return attempt
