"""Reads: what the admin, the API and the tasks ask of games' rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from games import engine, ranking
from games.errors import (
    AttemptNotOverError,
    BadStepError,
    DayNotOverError,
    NotFoundError,
)
from games.models import BOARD_CONDITION, Attempt, DailyChallenge, Deal
from games.verification_progress import preparing


def schedule_for_days(today: dt.date, days: int, kept: int | None = None) -> dict[str, Any]:
    """The dailies of ``days`` dates from ``today``, one slot a daily variant; gaps are None.

    A gap is ``missing`` (counted) only within the first ``kept`` dates, the days the pipeline
    keeps scheduled (today and DAILY_DAYS_AHEAD after it), and only for a configured variant;
    a later gap is ``due`` False: not yet the pipeline's to fill."""
    kept = days if kept is None else kept
    dates = [today + dt.timedelta(days=n) for n in range(days)]
    dailies = DailyChallenge.objects.filter(date__in=dates).select_related("deal")
    by_slot = {(daily.date, daily.variant): daily for daily in dailies}
    configured = list(settings.DAILY_VARIANTS)
    variants = configured + sorted({variant for _, variant in by_slot} - set(configured))
    rows = [
        {
            "date": date,
            "slots": [
                {"variant": v, "daily": by_slot.get((date, v)), "due": n < kept and v in configured}
                for v in variants
            ],
        }
        for n, date in enumerate(dates)
    ]
    missing = sum(1 for date in dates[:kept] for v in configured if (date, v) not in by_slot)
    return {"variants": variants, "rows": rows, "missing": missing}


def solution_steps(deal: Deal) -> list[dict[str, Any]]:
    """The deal and every position of its stored solution, from the engine's checked replay."""
    board = engine.Board.deal(deal.variant, deal.seed_int)
    steps = [_step(None, board)]
    for action in deal.solution or []:
        try:
            board.push_text(action)
        except engine.MoveError as error:
            steps.append(
                {"action": f"{action} (refused: {error.message})", "state": None, "columns": []}
            )
            break
        steps.append(_step(action, board))
    return steps


def _step(action: str | None, board: engine.Board) -> dict[str, Any]:
    state = engine.board_state(board)
    columns = [
        [(card, index < down) for index, card in enumerate(column)]
        for column, down in zip(state["tableau"], state["face_down"], strict=True)
    ]
    return {"action": action, "state": state, "columns": columns}


# --- the clock of the days ------------------------------------------------------------


def utc_today(now: dt.datetime | None = None) -> dt.date:
    """Days roll over at 00:00 UTC."""
    return (now or timezone.now()).astimezone(dt.UTC).date()


def day_end(date: dt.date) -> dt.datetime:
    """The moment a challenge's day closes: 00:00 UTC of the next date."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(0), tzinfo=dt.UTC)


def seconds_left(date: dt.date, now: dt.datetime | None = None) -> int:
    remaining = (day_end(date) - (now or timezone.now())).total_seconds()
    return max(0, int(remaining))


def day_is_closed(date: dt.date, now: dt.datetime | None = None) -> bool:
    return date < utc_today(now)


# --- positions: everything is recomputed from the deal and the stored log -------------


def deal_board(deal: Deal) -> engine.Board:
    return engine.Board.deal(deal.variant, deal.seed_int)


def stored_board(deal: Deal, actions: list[Any], whose: str) -> engine.Board:
    """The deal after stored ``actions`` (a log or a solution), through the checked path."""
    board = deal_board(deal)
    result = engine.replay_on(board, list(actions))
    if result.error is not None:  # pragma: no cover - only accepted actions are stored
        raise RuntimeError(f"the stored actions of {whose} do not replay: {result.error}")
    return board


def attempt_board(attempt: Attempt, upto: int | None = None) -> engine.Board:
    """The position after the first ``upto`` stored actions (all of them by default)."""
    log = attempt.log if upto is None else attempt.log[:upto]
    return stored_board(attempt.deal, log, f"attempt {attempt.pk}")


# --- what a player (or anyone) may see ------------------------------------------------


def visible_challenge(challenge_id: int, now: dt.datetime | None = None) -> DailyChallenge | None:
    """A challenge of today or of a past day. One whose day has not begun does not exist yet
    for players: None, exactly as for an unknown id (admins see the schedule)."""
    challenge = DailyChallenge.objects.select_related("deal").filter(pk=challenge_id).first()
    if challenge is None or challenge.date > utc_today(now):
        return None
    return challenge


def challenge_for_viewing(challenge_id: int, now: dt.datetime | None = None) -> DailyChallenge:
    """``visible_challenge``, or "not found"."""
    challenge = visible_challenge(challenge_id, now)
    if challenge is None:
        raise NotFoundError("No such challenge.")
    return challenge


def attempt_for_player(attempt_id: int, player: Any) -> Attempt:
    """The player's own attempt; anyone else's is "not found", not "forbidden"."""
    attempt = (
        Attempt.objects.select_related("deal", "challenge")
        .filter(pk=attempt_id, player_id=getattr(player, "pk", None))
        .first()
    )
    if attempt is None:
        raise NotFoundError("No such attempt.")
    return attempt


def attempt_elapsed(attempt: Attempt, now: dt.datetime | None = None) -> float:
    """Final elapsed time once over; until then the running clock since the start."""
    if attempt.is_over:
        return float(attempt.elapsed_seconds or 0.0)
    return max(0.0, ((now or timezone.now()) - attempt.started_at).total_seconds())


def attempt_summary(attempt: Attempt, now: dt.datetime | None = None) -> dict[str, Any]:
    return {
        "id": attempt.pk,
        "kind": attempt.kind,
        "started_at": attempt.started_at,
        "action_count": attempt.action_count,
        "over": attempt.is_over,
        "won": attempt.won,
        "end_reason": attempt.end_reason or None,
        "score": attempt.score,
        "elapsed_seconds": round(attempt_elapsed(attempt, now), 3),
    }


def deal_secrets_public(deal: Deal, challenge: DailyChallenge | None, now: dt.datetime) -> bool:
    """A daily's seed and nonce are public once its day is over, for everyone at once; a
    practice deal's never (the pool is shared and reused)."""
    return challenge is not None and day_is_closed(challenge.date, now)


def in_race_attempts() -> QuerySet[Attempt]:
    """The attempts of races not over for every racer (rooms unseal them at the end)."""
    return Attempt.objects.filter(cards_sealed=True)


def deal_in_race(deal_id: int) -> bool:
    """Is this deal the secret of a race that is still running?"""
    return in_race_attempts().filter(deal_id=deal_id).exists()


def attempt_cards_public(attempt: Attempt, now: dt.datetime | None = None) -> bool:
    """May the attempt's deal be shown whole (every face-down and stock card)?

    A daily's only once its day is over, for everyone at once: never because one attempt
    ended, since anyone can open a second account (docs/fair-play.md). A practice deal's once
    that practice attempt is over: practice deals are never dailies; a race's practice
    attempt's once the race is over for every racer (rooms unseal it), not when it ends; and
    no practice attempt's while its deal is in a running race (one played before the race
    began included).
    """
    if attempt.challenge_id is not None:
        return attempt.challenge is not None and day_is_closed(attempt.challenge.date, now)
    return (
        attempt.kind == Attempt.Kind.PRACTICE
        and attempt.is_over
        and not attempt.cards_sealed
        and not deal_in_race(attempt.deal_id)
    )


def position_for(board: engine.Board, cards_public: bool) -> dict[str, Any]:
    """The whole position when its cards are public, else the player's view of it."""
    return engine.board_state(board) if cards_public else engine.board_view(board)


def challenge_detail(
    challenge: DailyChallenge, player: Any, now: dt.datetime | None = None
) -> dict[str, Any]:
    now = now or timezone.now()
    deal = challenge.deal
    board = deal_board(deal)
    closed = day_is_closed(challenge.date, now)
    mine = None
    if getattr(player, "is_authenticated", False):
        own = Attempt.objects.filter(
            player=player, challenge=challenge, kind=Attempt.Kind.RANKED
        ).first()
        mine = attempt_summary(own, now) if own else None
    body: dict[str, Any] = {
        "id": challenge.pk,
        "date": challenge.date,
        "variant": challenge.variant,
        "commitment": deal.commitment,
        "par": deal.par,
        "difficulty": deal.difficulty_label or None,
        "state": engine.board_view(board),
        "open": not closed,
        "seconds_left": 0 if closed else seconds_left(challenge.date, now),
        "my_attempt": mine,
    }
    if closed:
        body["revealed"] = {
            "seed": str(deal.seed_int),
            "nonce": deal.nonce,
            "start_state": engine.board_state(board),
            "solution": list(deal.solution or []),
            "improve_nodes": deal.solver_improve_nodes,
            "solver_version": deal.solver_version,
        }
    else:
        body["revealed"] = None
    return body


def challenges_today(player: Any, now: dt.datetime | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    today = utc_today(now)
    dailies = DailyChallenge.objects.filter(date=today).select_related("deal")
    order = {variant: i for i, variant in enumerate(settings.DAILY_VARIANTS)}
    playable = sorted(
        (daily for daily in dailies if daily.deal.is_playable),
        key=lambda daily: (order.get(daily.variant, len(order)), daily.variant),
    )
    have = {daily.variant for daily in playable}
    missing = [variant for variant in settings.DAILY_VARIANTS if variant not in have]
    waiting = preparing(missing, now)
    message = None
    if any(entry["phase"] != "waiting" for entry in waiting):
        message = (
            "Today's daily is being proven winnable by the solver; it opens here by itself "
            "when the proof is done."
        )
    elif not playable:
        message = "No daily challenge is scheduled for today yet."
    return {
        "date": today,
        "seconds_left": seconds_left(today, now),
        "challenges": [challenge_detail(daily, player, now) for daily in playable],
        "preparing": waiting,
        "message": message,
    }


def attempt_detail(attempt: Attempt, now: dt.datetime | None = None) -> dict[str, Any]:
    """The owner's view of an attempt: the log once it is over; the whole deal once its
    cards are public (``attempt_cards_public``), the seed once a daily's day is over."""
    now = now or timezone.now()
    board = attempt_board(attempt)
    challenge = attempt.challenge
    last_time = float(attempt.action_times[-1]) if attempt.action_times else 0.0
    elapsed = attempt_elapsed(attempt, now)
    body: dict[str, Any] = {
        "id": attempt.pk,
        "kind": attempt.kind,
        "challenge_id": attempt.challenge_id,
        "date": challenge.date if challenge else None,
        "variant": attempt.deal.variant,
        "commitment": attempt.deal.commitment,
        "started_at": attempt.started_at,
        "ended_at": attempt.ended_at,
        "end_reason": attempt.end_reason or None,
        "state": engine.board_view(board),
        "legal_actions": [] if attempt.is_over else board.legal_actions(),
        "action_count": len(attempt.log),
        "offset": len(attempt.log),
        "over": attempt.is_over,
        "won": board.is_won,
        "deals_left": board.deals_left,
        "runs_completed": board.complete_foundations,
        "cards_turned_up": engine.cards_turned_up(board),
        "face_down_dealt": engine.face_down_dealt(board.variant),
        "race": attempt.is_race,
        "elapsed_seconds": round(elapsed, 3),
        "score": attempt.score
        if attempt.is_over
        else engine.score(len(attempt.log), last_time, board),
        # How the score is made (the final score's parts once over), for the result panel;
        # the API's ScoreSerializer renders the engine's breakdown, as for an actions answer.
        "score_parts": engine.score_breakdown(
            len(attempt.log),
            float(attempt.elapsed_seconds or 0.0) if attempt.is_over else last_time,
            board,
        ),
        "voided": attempt.voided,
        "log": None,
        "action_times": None,
        "start_state": None,
        "deal_revealed": False,
        "seed": None,
        "nonce": None,
    }
    if attempt.is_over:
        cards_public = attempt_cards_public(attempt, now)
        body["log"] = list(attempt.log)
        body["action_times"] = list(attempt.action_times)
        body["start_state"] = position_for(deal_board(attempt.deal), cards_public)
        body["deal_revealed"] = cards_public
        if deal_secrets_public(attempt.deal, challenge, now):
            body["seed"] = str(attempt.deal.seed_int)
            body["nonce"] = attempt.deal.nonce
    return body


def challenge_public_logs(
    challenge: DailyChallenge, now: dt.datetime | None = None
) -> dict[str, Any]:
    """Every counted ranked attempt of a closed day (the board's rows, in its order) with its
    log and server times, so that anyone can re-deal (with the revealed seed) and re-check
    every score."""
    now = now or timezone.now()
    if not day_is_closed(challenge.date, now):
        raise DayNotOverError(
            "Other players' games are public once the day is over "
            f"(in {seconds_left(challenge.date, now)} s)."
        )
    attempts = (
        Attempt.objects.filter(BOARD_CONDITION, challenge=challenge)
        .select_related("player")
        .order_by(*ranking.BOARD_ORDER, "pk")
    )
    return {
        "challenge_id": challenge.pk,
        "date": challenge.date,
        "variant": challenge.variant,
        "face_down_dealt": engine.face_down_dealt(engine.get_variant(challenge.variant)),
        "attempts": [
            {
                "id": attempt.pk,
                "username": attempt.player.get_username(),
                "score": attempt.score,
                "elapsed_seconds": attempt.elapsed_seconds,
                "action_count": attempt.action_count,
                "won": attempt.won,
                "runs_completed": attempt.runs_completed,
                "cards_turned_up": attempt.cards_turned_up,
                "end_reason": attempt.end_reason,
                "log": list(attempt.log),
                "action_times": list(attempt.action_times),
            }
            for attempt in attempts
        ],
    }


# --- replays: the position after k actions, recomputed by the engine -------------------


def attempt_for_replay(attempt_id: int, player: Any, now: dt.datetime | None = None) -> Attempt:
    """An attempt the asker may replay: their own, or anyone's counted ranked game of a day
    that is over (not voided). Anything else is "not found", as for another's attempt."""
    attempt = Attempt.objects.select_related("deal", "challenge").filter(pk=attempt_id).first()
    if attempt is None:
        raise NotFoundError("No such attempt.")
    owner = getattr(player, "pk", None) is not None and attempt.player_id == player.pk
    if not owner and not attempt_is_public(attempt, now):
        raise NotFoundError("No such attempt.")
    return attempt


def attempt_is_public(attempt: Attempt, now: dt.datetime | None = None) -> bool:
    """A ranked game is everyone's to see once its day is over, unless it was voided."""
    return (
        attempt.kind == Attempt.Kind.RANKED
        and attempt.challenge is not None
        and not attempt.voided
        and day_is_closed(attempt.challenge.date, now)
    )


def _replay_step(
    deal: Deal, log: list[Any], times: list[Any] | None, step: int, cards_public: bool
) -> dict[str, Any]:
    board = stored_board(deal, log[:step], f"deal {deal.pk}")
    return {
        "step": step,
        "steps": len(log),
        "action": str(log[step - 1]) if step else None,
        "time": float(times[step - 1]) if step and times and len(times) >= step else None,
        "state": position_for(board, cards_public),
        "cards_revealed": cards_public,
        "deals_left": board.deals_left,
        "runs_completed": board.complete_foundations,
        "won": board.is_won,
    }


def check_step(step: int, steps: int) -> int:
    """A replay's step is a whole number from 0 (the deal) to ``steps`` (the last position)."""
    if not 0 <= step <= steps:
        raise BadStepError(
            f"step {step} is out of range: this log has {steps} actions (step 0 to {steps}).",
            details={"step": step, "steps": steps},
        )
    return step


def attempt_replay_step(
    attempt: Attempt, step: int, now: dt.datetime | None = None
) -> dict[str, Any]:
    """The position of a finished attempt after its first ``step`` actions: whole once its
    cards are public, else as its player saw it (face-down and stock cards null)."""
    if not attempt.is_over:
        raise AttemptNotOverError("This attempt is not over yet: its replay opens when it ends.")
    log = list(attempt.log)
    check_step(step, len(log))
    cards_public = attempt_cards_public(attempt, now)
    body = _replay_step(attempt.deal, log, list(attempt.action_times), step, cards_public)
    return {"attempt_id": attempt.pk, "challenge_id": attempt.challenge_id, **body}


def solution_replay_step(
    challenge: DailyChallenge, step: int, now: dt.datetime | None = None
) -> dict[str, Any]:
    """The solver's solution of a closed day's deal, position by position."""
    now = now or timezone.now()
    if not day_is_closed(challenge.date, now):
        raise DayNotOverError(
            "The solution is public once the day is over "
            f"(in {seconds_left(challenge.date, now)} s)."
        )
    return {"challenge_id": challenge.pk, **deal_solution_step(challenge.deal, step)}


def deal_solution_step(deal: Deal, step: int) -> dict[str, Any]:
    """The deal's stored solution after ``step`` actions, whole: for callers that have
    checked that the deal is public (a closed day's, a finished race's)."""
    log = list(deal.solution or [])
    check_step(step, len(log))
    return _replay_step(deal, log, None, step, cards_public=True)


def analysis_lost_by(analysis: Any) -> dict[str, Any] | None:
    """The earliest action after which the game was proven lost: the first analysed position
    proven lost (``unsolvable``) after every position found winnable, as ``{index, action,
    nodes}`` (``index`` 0-based in the log, as ``lost_at``'s; ``nodes`` the proof's size).
    The same action as ``lost_at`` when that is proven; later when it is not, a proven bound
    on where the game was lost. None when no such position was proven, or when it is the
    deal itself (never winnable)."""
    positions = analysis.positions or []
    last_win = max((p["step"] for p in positions if p["status"] == "solved"), default=-1)
    proven = [p for p in positions if p["status"] == "unsolvable" and p["step"] > last_win]
    if not proven:
        return None
    first = min(proven, key=lambda p: p["step"])
    if first["step"] == 0:
        return None
    index = first["step"] - 1
    return {"index": index, "action": analysis.attempt.log[index], "nodes": first.get("nodes")}


def analysis_alternative_states(analysis: Any) -> list[dict[str, Any]]:
    """The positions along an analysis' winning alternative, from the position before the
    losing action (the attempt's cards are public whenever an analysis exists)."""
    if not analysis.lost_at or not analysis.alternative:
        return []
    board = attempt_board(analysis.attempt, upto=analysis.lost_at["index"])
    states = [engine.board_state(board)]
    for action in analysis.alternative:
        board.push_text(action)
        states.append(engine.board_state(board))
    return states
