"""Deals: create candidates, verify them with the solver, schedule and retire them.

Nothing here logs a seed: a deal is named by its id until its day is over.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine, solver
from games.errors import DealStateError
from games.models import Attempt, DailyChallenge, Deal, commitment_for
from games.solver.child import prove_lost_in_child, solve_in_child
from games.solver.decide import Decision, prove_lost
from games.solver.outcome import StopReason
from games.solver.search import ProgressCallback
from games.verification_progress import note_progress

log = logging.getLogger(__name__)

PROGRESS_LOG_SECONDS = 5.0  # at most one progress line a deal this often (and one when proven)

FINISHED = {Deal.Status.VERIFIED, Deal.Status.UNSOLVABLE, Deal.Status.UNKNOWN, Deal.Status.FAILED}


def deal_create(*, variant: str, pool: str = Deal.Pool.DAILY, seed: int | None = None) -> Deal:
    """A new pending deal; the seed comes from a cryptographic generator unless given."""
    engine.get_variant(variant)
    if seed is None:
        seed = secrets.randbits(64)
    engine.check_seed(seed)
    nonce = secrets.token_hex(16)
    deal = Deal.objects.create(
        variant=variant,
        seed=str(seed),
        nonce=nonce,
        commitment=commitment_for(variant, seed, nonce),
        pool=pool,
        rules_version=engine.RULES_VERSION,
    )
    log.info("deal %s created (%s, %s pool)", deal.pk, variant, pool)
    return deal


def _lease() -> dt.timedelta:
    """How long a claim holds: past the task's hard limit, its worker is surely gone."""
    return dt.timedelta(seconds=settings.DEAL_VERIFY_HARD_LIMIT + settings.DEAL_VERIFY_LEASE_MARGIN)


def _claim(deal_id: int, *, force: bool) -> tuple[Deal, int] | None:
    """Mark the deal as being verified by us; None when there is nothing to do."""
    now = timezone.now()
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal_id)
        if deal.retired:
            log.info("deal %s is retired: not verified", deal.pk)
            return None
        if deal.status == Deal.Status.VERIFYING and deal.lease_until and deal.lease_until > now:
            log.info("deal %s is being verified elsewhere until %s", deal.pk, deal.lease_until)
            return None
        if deal.status in FINISHED and not force:
            log.info("deal %s already %s: nothing to do", deal.pk, deal.status)
            return None
        if deal.status == Deal.Status.VERIFYING:
            log.warning("deal %s: the previous verification's lease ran out; taking over", deal.pk)
        deal.status = Deal.Status.VERIFYING
        deal.verify_started_at = now
        deal.lease_until = now + _lease()
        deal.verify_runs += 1
        deal.save(
            update_fields=[
                "status",
                "verify_started_at",
                "lease_until",
                "verify_runs",
                "updated_at",
            ]
        )
    return deal, deal.verify_runs


@dataclass(frozen=True)
class Outcome:
    status: str
    nodes: int | None = None
    seconds: float | None = None
    peak_mb: float | None = None
    error: str = ""
    solution: list[str] | None = None
    par: int | None = None
    difficulty: float | None = None
    difficulty_label: str = ""
    improve_nodes: int | None = None  # the budget the line was found with


@dataclass(frozen=True)
class Limits:
    """What one verification's search may spend: seconds, and positions (None: no bound)."""

    seconds: float
    nodes: int | None

    @classmethod
    def of(cls, seconds: float | None, nodes: int | None) -> Limits:
        """The limits given, the settings' where not (SOLVER_SECONDS, SOLVER_NODES; 0 nodes:
        no bound)."""
        seconds = settings.SOLVER_SECONDS if seconds is None else seconds
        nodes = settings.SOLVER_NODES if nodes is None else nodes
        return cls(seconds, nodes or None)


def improve_budget(deal: Deal, today: dt.date | None = None) -> int:
    """The improve phase's positions for this deal's verification.

    Verification runs days ahead, so the time left buys a shorter par
    (SOLVER_IMPROVE_NODES) — except for a daily-pool candidate while today has no daily of
    its variant (a fresh install, or every candidate failed): players are waiting for that
    day, so it gets SOLVER_OPENING_IMPROVE_NODES and opens within seconds. Either way the
    par is the line found and stays the day's (``_record``); the budget is stored with it,
    so that ``python -m games.solver VARIANT SEED --improve-nodes N`` re-finds it.
    """
    full = settings.SOLVER_IMPROVE_NODES
    if deal.pool != Deal.Pool.DAILY:
        return full
    today = today or timezone.now().date()
    if DailyChallenge.objects.filter(date=today, variant=deal.variant).exists():
        return full
    return min(full, settings.SOLVER_OPENING_IMPROVE_NODES)


def _deal_board(deal: Deal) -> engine.Board:
    """The dealt position the solver searches in this process (one place, for both searches)."""
    return engine.Board.deal(deal.variant, deal.seed_int)


def _run_solver(
    deal: Deal,
    limits: Limits,
    improve_nodes: int,
    progress: ProgressCallback | None,
) -> solver.SolveResult:
    """In this process, or (SOLVER_NICENESS > 0, the embedded run) in a niced child."""
    if settings.SOLVER_NICENESS > 0:
        return solve_in_child(
            deal.variant,
            deal.seed_int,
            niceness=settings.SOLVER_NICENESS,
            seconds=limits.seconds,
            max_nodes=limits.nodes,
            max_memory_mb=settings.SOLVER_MAX_MEMORY_MB,
            improve_nodes=improve_nodes,
            progress=progress,
        )
    return solver.solve(
        _deal_board(deal),
        seconds=limits.seconds,
        max_nodes=limits.nodes,
        max_memory_mb=settings.SOLVER_MAX_MEMORY_MB,
        improve_nodes=improve_nodes,
        progress=progress,
    )


def _solve(deal: Deal, limits: Limits, progress: ProgressCallback | None) -> Outcome:
    budget = improve_budget(deal)
    result = _run_solver(deal, limits, budget, progress)
    effort = (result.nodes, result.seconds, result.peak_memory_mb)
    if result.status == solver.UNSOLVABLE:
        return _proof_of_loss(deal, result)
    if result.status != "solved":
        return Outcome(result.status, *effort, error=_not_proven(result))
    # Never trust the solver's bookkeeping: the engine's checked replay is the certificate.
    check = engine.replay(deal.variant, deal.seed_int, list(result.moves))
    if not (check.ok and check.won):
        why = check.error.message if check.error else "the log does not end in a win"
        return Outcome(
            Deal.Status.FAILED, *effort, error=f"solver log rejected by the engine: {why}"
        )
    label, number = solver.difficulty(result, deal.variant)
    return Outcome(
        Deal.Status.VERIFIED,
        *effort,
        solution=list(result.moves),
        par=len(result.moves),
        difficulty=number,
        difficulty_label=label,
        improve_nodes=budget,
    )


STOPPED_AT_A_LIMIT = (StopReason.TIME_LIMIT, StopReason.NODE_LIMIT, StopReason.MEMORY_LIMIT)


def _not_proven(result: solver.SolveResult) -> str:
    """Why an unknown deal is unknown, for the operators (the admin's last error)."""
    if not result.reason:
        return ""
    effort = f"{result.nodes:,} positions in {result.seconds:.1f} s"
    if result.reason in STOPPED_AT_A_LIMIT:
        return f"not proven: the search stopped at its {result.reason} ({effort})"
    return f"not proven: {result.reason} ({effort})"


def proof_budget(result: solver.SolveResult) -> int:
    """The complete search's positions for a deal the solver's own search exhausted: twice
    the positions that search took (both visit the same classes of positions, so the proof
    needs about as many; docs/pipeline.md, "Proven unwinnable")."""
    return 2 * result.nodes + 1


def _run_proof(deal: Deal, max_nodes: int) -> Decision:
    """``decide.prove_lost`` on the deal: in this process, or in a niced child as the solver."""
    if settings.SOLVER_NICENESS > 0:
        return prove_lost_in_child(
            deal.variant, deal.seed_int, niceness=settings.SOLVER_NICENESS, max_nodes=max_nodes
        )
    return prove_lost(_deal_board(deal), max_nodes)


def _proof_of_loss(deal: Deal, result: solver.SolveResult) -> Outcome:
    """The solver exhausted its search with no win (no unsafe pruning: ``api.solve``): the
    complete search of games.solver.decide proves it, or the deal stays unproven.

    Unsolvable is stored only for the complete search's proof: every class of positions
    reachable from the deal visited, no win, cut only by ``complete.PROOF_RULES``;
    ``solver_nodes`` is then the proof's size (the classes it expanded). Only deals the
    heuristic found no win for get here: a winnable deal is never slower to verify.
    """
    budget = proof_budget(result)
    began = time.perf_counter()
    decision = _run_proof(deal, budget)
    seconds = result.seconds + (time.perf_counter() - began)
    if decision.unwinnable:
        log.info(
            "deal %s: proven unwinnable (%s positions searched; the solver's search: %s)",
            deal.pk,
            decision.nodes,
            result.nodes,
        )
        return Outcome(Deal.Status.UNSOLVABLE, decision.nodes, seconds, result.peak_memory_mb)
    if decision.winnable:  # two searches disagree: a bug, for the operators to see
        return Outcome(
            Deal.Status.FAILED,
            result.nodes,
            seconds,
            result.peak_memory_mb,
            error=(
                "the solver's search was exhausted with no win, but the complete search found "
                f"a line of {len(decision.line)} actions: the solver is wrong about this deal"
            ),
        )
    return Outcome(
        Deal.Status.UNKNOWN,
        result.nodes,
        seconds,
        result.peak_memory_mb,
        error=(
            "not proven: the solver's search was exhausted with no win, but the complete "
            f"search ran out of its {budget:,} positions before a proof"
        ),
    )


def _par_is_fixed(deal: Deal, outcome: Outcome) -> bool:
    """A re-verification that proves a daily winnable again once its day has begun keeps
    the par (and the line, and the difficulty) its players were shown."""
    return (
        outcome.status == Deal.Status.VERIFIED
        and deal.par is not None
        and DailyChallenge.objects.filter(deal=deal, date__lte=timezone.now().date()).exists()
    )


def _record(deal_id: int, run: int, outcome: Outcome) -> Deal:
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal_id)
        if deal.verify_runs != run or deal.status != Deal.Status.VERIFYING:
            log.warning("deal %s: verification run %s was superseded; result dropped", deal_id, run)
            return deal
        if _par_is_fixed(deal, outcome):
            log.info(
                "deal %s: proven winnable again; its day has begun, so its par %s stays",
                deal.pk,
                deal.par,
            )
        else:
            deal.solution = outcome.solution
            deal.par = outcome.par
            deal.difficulty = outcome.difficulty
            deal.difficulty_label = outcome.difficulty_label
            deal.solver_improve_nodes = outcome.improve_nodes
        deal.status = outcome.status
        deal.solver_nodes = outcome.nodes
        deal.solver_seconds = outcome.seconds
        deal.solver_peak_mb = outcome.peak_mb
        deal.solver_version = solver.SOLVER_VERSION
        deal.last_error = outcome.error
        deal.lease_until = None
        deal.verified_at = timezone.now() if outcome.status == Deal.Status.VERIFIED else None
        deal.save()
    log.info(
        "deal %s %s (par %s, %s nodes, %.1f s)%s",
        deal.pk,
        deal.status,
        deal.par,
        deal.solver_nodes,
        deal.solver_seconds or 0.0,
        # why it is unknown (no card in it; a failure's error can name one, so not that)
        f"; {outcome.error}" if deal.status == Deal.Status.UNKNOWN and outcome.error else "",
    )
    return deal


def progress_logger(deal_id: int) -> ProgressCallback:
    """The solver's progress on ``deal_id``: the phase and positions for the pages (a
    deal proven for a day players wait for: games/verification_progress.py), and log lines,
    one when the deal is proven and at most one every PROGRESS_LOG_SECONDS otherwise."""
    last_line = -PROGRESS_LOG_SECONDS
    proven_said = False

    def progress(report: solver.Progress) -> None:
        nonlocal last_line, proven_said
        note_progress(deal_id, proven=report.par is not None, positions=report.nodes)
        clock = time.monotonic()
        if report.par is not None and not proven_said:
            proven_said = True
            last_line = clock
            log.info(
                "deal %s: proven winnable (a line of %s moves); shortening it", deal_id, report.par
            )
            return
        if clock - last_line < PROGRESS_LOG_SECONDS:
            return
        last_line = clock
        if report.par is None:
            log.info(
                "deal %s: solving, %s positions in %.0f s", deal_id, report.nodes, report.seconds
            )
        else:
            log.info(
                "deal %s: shortening the par (best line %s moves), %s positions in %.0f s",
                deal_id,
                report.par,
                report.nodes,
                report.seconds,
            )

    return progress


def deal_verify(
    *,
    deal_id: int,
    force: bool = False,
    seconds: float | None = None,
    nodes: int | None = None,
    progress: ProgressCallback | None = None,
) -> Deal:
    """Prove the deal winnable (or not) and store what was found. Safe to run twice.

    The search stops at ``seconds`` (SOLVER_SECONDS) or ``nodes`` positions (SOLVER_NODES;
    0: no bound), whichever comes first; then the deal is 'unknown'.
    A finished deal is left as it is unless ``force`` (re-verify after an engine or solver
    change). A deal whose verifier died is taken over once its lease has run out.
    """
    claimed = _claim(deal_id, force=force)
    if claimed is None:
        return Deal.objects.get(pk=deal_id)
    deal, run = claimed
    log.info("deal %s: verification run %s started (%s)", deal.pk, run, deal.variant)
    try:
        outcome = _solve(deal, Limits.of(seconds, nodes), progress)
    except MemoryError:
        outcome = Outcome(status=Deal.Status.UNKNOWN, error="the solver ran out of memory")
    except Exception as exc:
        log.exception("deal %s: the solver failed", deal.pk)
        outcome = Outcome(status=Deal.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return _record(deal.pk, run, outcome)


def deal_verdict(deal: Deal) -> str:
    """The verification's finding in a few words, for the operators: "proven unwinnable"
    only for a proof (an exhausted complete search), "unknown" when a budget ran out first."""
    if deal.status == Deal.Status.VERIFIED:
        return "proven winnable"
    if deal.status == Deal.Status.UNSOLVABLE:
        return f"proven unwinnable ({deal.solver_nodes or 0:,} positions searched)"
    if deal.status == Deal.Status.UNKNOWN:
        return "unknown: budget ran out"
    if deal.status == Deal.Status.FAILED:
        return "failed: see the last error"
    return "not verified yet"


def deal_mark_unknown(*, deal_id: int, reason: str) -> Deal:
    """Close a verification that hit the task's time limit: the deal is 'unknown', not stuck."""
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal_id)
        if deal.status == Deal.Status.VERIFYING:
            deal.status = Deal.Status.UNKNOWN
            deal.last_error = reason
            deal.lease_until = None
            deal.save()
    log.warning("deal %s: %s", deal_id, reason)
    return deal


def deal_requeue(*, deal_id: int) -> Deal:
    """Put a deal that ended unknown or failed back to pending, for another try."""
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal_id)
        if deal.status in (Deal.Status.UNKNOWN, Deal.Status.FAILED):
            deal.status = Deal.Status.PENDING
            deal.save(update_fields=["status", "updated_at"])
    return deal


def deal_schedule(*, deal: Deal, date: dt.date) -> DailyChallenge:
    """Make ``deal`` the daily of its variant on ``date``: a verified deal of the daily pool
    that no practice attempt has played."""
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal.pk)
        if not deal.is_playable:
            raise DealStateError(
                f"deal {deal.pk} is {deal.status}{' and retired' if deal.retired else ''}: "
                "only verified deals can be scheduled"
            )
        if (
            deal.pool != Deal.Pool.DAILY
            or deal.attempts.filter(kind=Attempt.Kind.PRACTICE).exists()
        ):
            raise DealStateError(
                f"deal {deal.pk} is a practice deal: practice players may have seen all its "
                "cards, so it can never be a daily (choose a deal of the daily pool)"
            )
        if date < timezone.now().date():
            raise DealStateError(f"{date} is in the past")
        if DailyChallenge.objects.filter(deal=deal).exists():
            raise DealStateError(f"deal {deal.pk} is already scheduled")
        if DailyChallenge.objects.filter(date=date, variant=deal.variant).exists():
            raise DealStateError(f"{date} already has a {deal.variant} daily")
        return DailyChallenge.objects.create(date=date, variant=deal.variant, deal=deal)


def deal_retire(*, deal: Deal) -> Deal:
    """Take a deal out of use. A daily that has not started yet is unscheduled, to be refilled."""
    today = timezone.now().date()
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal.pk)
        if DailyChallenge.objects.filter(deal=deal, date__lte=today).exists():
            raise DealStateError(
                f"deal {deal.pk} is a daily that has started: it cannot be retired"
            )
        DailyChallenge.objects.filter(deal=deal).delete()
        deal.retired = True
        deal.save(update_fields=["retired", "updated_at"])
    log.info("deal %s retired", deal.pk)
    return deal
