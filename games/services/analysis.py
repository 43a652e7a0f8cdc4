"""Game analysis (issue 31): where a finished game was lost, and how far from a win it was.

Asked once the attempt's cards are public (``attempt_cards_public``: a daily's once its day
is over, a practice game's once it ends, never a sealed race's) by anyone who may replay it;
before that, the attempt is "not found", exactly as an unknown id, and nothing is stored.

The analysed positions are the boards after ``k`` actions of the log (``attempt_board``),
``k`` from the end backwards ("newest decisions first"), galloping: ``n, n-1, n-3, n-7, …,
0``. A lost game stops galloping at the first winnable position found; walks forward from it
one position at a time while they are winnable (``_walk_forward``: every line found is kept,
``_Budget.known``, the deal's stored solution first, so a position a move or two off a
known line, or one action after a known win whose line still wins followed after that
action, is winnable without a search; reaching the end, the game could still be won when it
ended); from the earliest
position proven lost after it, it walks back one position at a time, proof first, while
they are proven lost (``_walk_back``: every proof adds its lost classes to one set for the
game, ``_Budget.lost``, so the proof of the position before costs little); a winnable
position met there is the losing action, proven. Then it bisects between the last winnable
position and the nearest position with no win found, assuming winnability is monotone along
the game (once lost, lost); whatever the walk back and the positions next to the last win
cost, the first round's budget is kept for each position the bisection may have to ask about
(``_Budget.keeping``), so that it can still end next to the last win when nodes run short.
With ``undo`` in the log that is not strictly so (an undo returns to a position seen
before); the answer then is still a position with a win found followed by an action after
which none was found. A round that ends next to a position neither won nor
proven lost is followed by another with ``ESCALATION`` times the budget a position
(``_losing_action``), while the job has the nodes: the positions still unknown are decided
again as it meets them, each with the one phase its side needs (the heuristic search nearer
the last win, the complete search nearer the first proof), so the two sides close in.

Each position is decided (``games.solver.decide``): winnable with a line the engine replays
to a win (``solved``), proven lost by the complete search (``unsolvable``), or ``unknown``
when its budget ran out. Budgets are in positions, never seconds, so a game gets the same
analysis on any machine: at most ``ANALYSIS_POSITION_NODES`` a position, ``ANALYSIS_NODES``
for the whole job; a position past the budget is ``unknown``, and ``positions`` names exactly
the positions analysed. ``lost_at`` is then *proven* (``"proven": true``) when the position
after its action was proven lost: the game could be won before that action and not after
it. A lost game whose deal itself is proven lost (step 0 ``unsolvable``, no ``lost_at``) was
never winnable. Each position also says the positions (``nodes``) searched to decide it and
its ``budget`` (what each phase of ``decide`` could have; 0 once the job's were spent), so
the page can say "proven: N positions searched" and, when no losing action was found, that
the budget ran out. ``ANALYSIS_SECONDS`` only bounds the job's worker time (Celery's limit).

A won game: the shortest line from the deal (position 0) against the actions played gives
``saved``. One row per attempt (``AttemptAnalysis.attempt`` is unique); the run claims the
row pending -> running in one UPDATE, so a second run of the task does nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.utils import timezone

from games import solver
from games.engine import Board
from games.errors import AttemptNotOverError, NoAnalysisError, NotFoundError
from games.models import Attempt, AttemptAnalysis
from games.selectors import attempt_board, attempt_cards_public, attempt_for_replay
from games.solver.decide import LOOK_NODES, KnownWins, Verdict, decide, near_known_win

log = logging.getLogger(__name__)

ANALYSIS_TASK = "games.attempt_analyse"


def analysable_attempt(*, attempt_id: int, player: Any) -> Attempt:
    """The attempt if the asker may see its analysis, else "not found" as for an unknown id."""
    attempt = attempt_for_replay(attempt_id, player)
    if not attempt_cards_public(attempt):
        raise NotFoundError("No such attempt.")
    if not attempt.is_over:
        raise AttemptNotOverError("Only a finished game can be analysed.")
    return attempt


def analysis_for(*, attempt_id: int, player: Any) -> AttemptAnalysis:
    """The stored analysis (GET): 404 no_analysis when never asked."""
    attempt = analysable_attempt(attempt_id=attempt_id, player=player)
    analysis = AttemptAnalysis.objects.filter(attempt=attempt).first()
    if analysis is None:
        raise NoAnalysisError("No analysis of this game was asked for yet.")
    return analysis


def analysis_request(*, attempt_id: int, player: Any) -> AttemptAnalysis:
    """Ask for the analysis (POST): the one row per attempt, its job queued once."""
    attempt = analysable_attempt(attempt_id=attempt_id, player=player)
    try:
        with transaction.atomic():
            analysis, created = AttemptAnalysis.objects.get_or_create(attempt=attempt)
    except IntegrityError:  # a concurrent ask made it first
        return AttemptAnalysis.objects.get(attempt=attempt)
    if created or _requeued(analysis):
        transaction.on_commit(lambda: enqueue_analysis(analysis.pk))
        analysis.refresh_from_db()
    return analysis


def _stale_after() -> dt.timedelta:
    """How long a queued or running analysis may take before asking again starts it over
    (its worker died, or the embedded process stopped): twice the budget, and a minute."""
    return dt.timedelta(seconds=2 * float(settings.ANALYSIS_SECONDS) + 60)


def _requeued(analysis: AttemptAnalysis) -> bool:
    """A failed analysis, or one queued or running for longer than it can take, goes back to
    pending (once: the update is conditional on the row as read) to be run again."""
    now = timezone.now()
    unfinished = (AttemptAnalysis.Status.PENDING, AttemptAnalysis.Status.RUNNING)
    stale = analysis.status in unfinished and now - analysis.created_at > _stale_after()
    if analysis.status != AttemptAnalysis.Status.FAILED and not stale:
        return False
    return bool(
        AttemptAnalysis.objects.filter(
            pk=analysis.pk, status=analysis.status, created_at=analysis.created_at
        ).update(
            status=AttemptAnalysis.Status.PENDING,
            created_at=now,
            finished_at=None,
            positions=[],
            planned=0,
            lost_at=None,
            alternative=[],
            saved=None,
            worker_seconds=0.0,
        )
    )


def enqueue_analysis(analysis_id: int) -> None:
    """With workers, a Celery task; embedded (tasks eager), a thread of its own so that the
    request does not wait up to ``ANALYSIS_SECONDS`` (as games/background_verifier.py).
    The task is sent by its name (games/tasks.py defines it on this module's service)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        thread = threading.Thread(
            target=_run_in_thread, args=(analysis_id,), name="analysis", daemon=True
        )
        thread.start()
    else:
        current_app.send_task(ANALYSIS_TASK, args=(analysis_id,))


# The embedded run's analyses take turns (one solver at a time beside the web requests, as
# one Celery worker would take them), each in its own short-lived thread.
_EMBEDDED_TURN = threading.Lock()


def _run_in_thread(analysis_id: int) -> None:
    with _EMBEDDED_TURN:
        close_old_connections()
        try:
            analysis_run(analysis_id=analysis_id)
        finally:
            connection.close()


def analysis_run(*, analysis_id: int) -> AttemptAnalysis:
    """Run the analysis if it is still pending (safe to run twice: the second does nothing)."""
    claimed = AttemptAnalysis.objects.filter(
        pk=analysis_id, status=AttemptAnalysis.Status.PENDING
    ).update(status=AttemptAnalysis.Status.RUNNING)
    analysis = AttemptAnalysis.objects.select_related("attempt__deal").get(pk=analysis_id)
    if not claimed:
        return analysis
    try:
        _analyse(analysis)
    except Exception:
        log.exception("analysis %s failed", analysis_id)
        AttemptAnalysis.objects.filter(pk=analysis_id).update(
            status=AttemptAnalysis.Status.FAILED, finished_at=timezone.now()
        )
        analysis.refresh_from_db()
        return analysis
    log.info(
        "analysis %s of attempt %s done: %d positions in %.1f s",
        analysis_id,
        analysis.attempt_id,
        len(analysis.positions),
        analysis.worker_seconds,
    )
    return analysis


def gallop_steps(n: int) -> list[int]:
    """Positions from the end backwards: n, n-1, n-3, n-7, …, and always 0."""
    steps, gap = [n], 1
    while steps[-1] > 0:
        steps.append(max(0, n - gap))
        gap = gap * 2 + 1
    return steps


# A round that ends next to a position neither won nor proven lost is followed by one whose
# positions get this many times the budget (while the job has nodes left).
ESCALATION = 4


class _Budget:
    """The job's positions (nodes) left: each position gets at most
    ``ANALYSIS_POSITION_NODES`` of them, the job ``ANALYSIS_NODES`` in all; no clock."""

    def __init__(self) -> None:
        self.start = time.monotonic()  # for worker_seconds only: never for a verdict
        self.nodes_left = int(settings.ANALYSIS_NODES)
        self.position_nodes = int(settings.ANALYSIS_POSITION_NODES)
        self.first_round_nodes = self.position_nodes  # a position's budget in the first round
        self.later_round = False  # a round after the first: one phase a position
        # Classes of this deal's positions proven lost so far: a later position's proof
        # serves the earlier ones (games.solver.complete.exhaust).
        self.lost: set[bytes] = set()
        # Positions known winnable, with their lines: a position a move or two from one is
        # winnable without a search (games.solver.decide.KnownWins).
        self.known = KnownWins()

    def for_position(self) -> int:
        return min(self.position_nodes, self.nodes_left)

    def keeping(self, later: int) -> int:
        """A position's budget that keeps the first round's for ``later`` positions more
        (those a bisection may still have to decide): this round's at most, 0 when the
        job's nodes left are not more than what is kept."""
        return min(self.position_nodes, max(0, self.nodes_left - later * self.first_round_nodes))

    def for_probe(self, probes: int) -> int:
        """The budget of the first of ``probes`` positions a bisection may still have to
        decide: the most that keeps the first round's for each of the others, and never
        less than the first round's (while the job has it)."""
        first = min(self.first_round_nodes, self.nodes_left)
        return max(first, self.keeping(probes - 1))

    def escalate(self) -> bool:
        """The next round's budget a position: ``ESCALATION`` times this round's (False, and
        no round, once a position may already have all the job's nodes left)."""
        if self.position_nodes <= 0 or self.position_nodes >= self.nodes_left:
            return False
        self.position_nodes *= ESCALATION
        self.later_round = True
        return True

    def spend(self, nodes: int) -> None:
        self.nodes_left = max(0, self.nodes_left - nodes)


# A position's status as ``positions`` says it (docs/api.md): the solver's words.
_STATUS = {
    Verdict.WINNABLE: solver.SOLVED,
    Verdict.UNWINNABLE: solver.UNSOLVABLE,
    Verdict.UNKNOWN: solver.UNKNOWN,
}


class _Found(NamedTuple):
    """One analysed position: its status, the line found (solved), the positions (nodes)
    searched to decide it, and its budget: the nodes each of decide's two phases could have,
    0 when the job's were spent before it."""

    status: str
    moves: list[str]
    nodes: int
    budget: int


def _solve(board: Board, budget: _Budget, nodes: int, proof_first: bool = False) -> _Found:
    if board.is_won:
        return _Found(solver.SOLVED, [], 0, 0)
    if nodes <= 0:
        return _Found(solver.UNKNOWN, [], 0, 0)
    # A later round's position gets only the phase its frontier needs (ESCALATION).
    decision = decide(board, nodes, budget.lost, proof_first, budget.known, budget.later_round)
    budget.spend(decision.nodes)
    return _Found(str(_STATUS[decision.verdict]), list(decision.line), decision.nodes, nodes)


def _analyse(analysis: AttemptAnalysis) -> None:
    attempt = analysis.attempt
    n = len(attempt.log)
    budget = _Budget()
    # The deal's stored solution (verified when the deal was): the start is a known win,
    # and the walk forward follows that line through the player's first moves.
    budget.known.learn(attempt_board(attempt, upto=0), list(attempt.deal.solution or []))
    found: dict[int, _Found] = {}
    steps = gallop_steps(n)
    AttemptAnalysis.objects.filter(pk=analysis.pk).update(planned=len(steps))

    def record(step: int, position: _Found) -> _Found:
        found[step] = position
        AttemptAnalysis.objects.filter(pk=analysis.pk).update(
            positions=_positions(found), planned=max(len(steps), len(found))
        )
        return position

    def analyse(step: int, nodes: int) -> _Found:
        """Decide the position after ``step`` actions with at most ``nodes``, proof first when
        a position proven lost after it is at least as near as any winnable one before it."""
        lost_after = min(
            (s for s, p in found.items() if s > step and p.status == solver.UNSOLVABLE),
            default=None,
        )
        won_before = max(
            (s for s, p in found.items() if s < step and p.status == solver.SOLVED), default=None
        )
        proof_first = lost_after is not None and (
            won_before is None or lost_after - step <= step - won_before
        )
        return record(step, _solve(attempt_board(attempt, upto=step), budget, nodes, proof_first))

    def decided(step: int, nodes: int) -> _Found:
        """The position's decision: the one found, unless it was unknown with a smaller
        budget than ``nodes`` (a later round's, within the job's nodes left: _Budget.keeping
        and for_probe): then decided again with ``nodes``."""
        position = found.get(step)
        if position is None or (position.status == solver.UNKNOWN and position.budget < nodes):
            return analyse(step, nodes)
        return position

    def near_win(step: int) -> bool:
        """Whether the position after ``step`` actions is a move or two from a known win
        (recorded when it is; nothing is recorded of a position not won so)."""
        before = found.get(step)
        near = _near_known_win(attempt, step, budget, before)
        if near is not None:
            record(step, near)
        return near is not None

    winnable_at: int | None = None
    for step in steps:
        if analyse(step, budget.for_position()).status == solver.SOLVED and not attempt.won:
            winnable_at = step
            break
    lost_at = alternative = saved = None
    if not attempt.won and winnable_at is not None and winnable_at < n:
        winnable_at, lost_step = _losing_action(winnable_at, n, found, decided, near_win, budget)
        if lost_step - winnable_at == 1:
            lost_at = {
                "index": winnable_at,
                "action": attempt.log[winnable_at],
                "proven": found[lost_step].status == solver.UNSOLVABLE,
            }
            alternative = found[winnable_at].moves
    if attempt.won and 0 in found and found[0].status == solver.SOLVED:
        shortest = len(found[0].moves)
        saved = {
            "played": n,
            "shortest": shortest,
            "actions": max(0, n - shortest),
            "where": _where_saved(n, found),
        }
    analysis.positions = _positions(found)
    analysis.lost_at = lost_at
    analysis.alternative = alternative or []
    analysis.saved = saved
    analysis.worker_seconds = round(time.monotonic() - budget.start, 3)
    analysis.status = AttemptAnalysis.Status.DONE
    analysis.finished_at = timezone.now()
    analysis.save()


def _losing_action(
    winnable_at: int,
    n: int,
    found: dict[int, _Found],
    decided: Callable[[int, int], _Found],
    near_win: Callable[[int], bool],
    budget: _Budget,
) -> tuple[int, int]:
    """The last winnable position and the one after it (``n, n``: still winnable at the
    end), in rounds. A round walks forward from the last winnable position, walks back from
    the earliest proven lost, then bisects between the last winnable position and the
    nearest after it with no win found. A round that ends next to a position neither won
    nor proven lost is followed by another whose positions get ``ESCALATION`` times the
    budget, its unknown positions decided again as it meets them, while the job has
    nodes left: the two frontiers close in until they meet (proven) or the nodes run out.
    Whatever the walk back and the frontiers cost, the first round's budget is kept for
    each position the bisection may have to decide (``_Budget.keeping``), so that a round
    can still end next to the last win found when the job's nodes run short."""
    while True:
        winnable_at = _walk_forward(winnable_at, n, found, near_win, budget)
        if winnable_at >= n:
            return n, n
        lost_step = min((s for s in found if s > winnable_at), default=n)
        # kept: the bisection's positions, and the nearest one with no win found before it
        keep = _probes(winnable_at, lost_step) + 1
        winnable_at = _walk_back(winnable_at, found, decided, budget, keep)
        # the nearest position after it with no win found, decided with this round's budget
        lost_step = min((s for s in found if s > winnable_at), default=n)
        if decided(lost_step, budget.keeping(_probes(winnable_at, lost_step))).status == (
            solver.SOLVED
        ):
            winnable_at = lost_step
            continue
        while lost_step - winnable_at > 1:
            # the positions it may still have to decide: the first round's budget is kept
            # for each, so that it can end next to the last win found (_Budget.for_probe)
            share = budget.for_probe(_probes(winnable_at, lost_step))
            if share <= 0:
                break
            middle = (winnable_at + lost_step) // 2
            if decided(middle, share).status == solver.SOLVED:
                winnable_at = middle
            else:
                lost_step = middle
        proven = found[lost_step].status == solver.UNSOLVABLE
        if lost_step - winnable_at > 1 or proven or not budget.escalate():
            return winnable_at, lost_step


def _probes(winnable_at: int, lost_step: int) -> int:
    """The positions a bisection between these two may have to decide, at most."""
    return (lost_step - winnable_at - 1).bit_length()


def _walk_forward(
    winnable_at: int,
    n: int,
    found: dict[int, _Found],
    near_win: Callable[[int], bool],
    budget: _Budget,
) -> int:
    """The positions after ``winnable_at`` one by one while each is winnable at a first
    look: the line known from the position before, followed after the player's action
    (``KnownWins.followed``), or a move or two onto a known win (an idle move, a card moved
    and moved back: ``KnownWins.near``); a few thousand positions played at most, no search.
    The first that is not stops the walk, undecided (the bisection that follows decides
    with a search). The new ``winnable_at`` (``n``: still winnable at the end)."""
    step = winnable_at + 1
    while step <= n and budget.nodes_left > 0:
        if step in found and found[step].status == solver.UNSOLVABLE:
            break
        if not near_win(step):
            break
        winnable_at = step
        step += 1
    return winnable_at


def _near_known_win(
    attempt: Attempt, step: int, budget: _Budget, before: _Found | None
) -> _Found | None:
    """The position after ``step`` actions as winnable at a first look
    (``decide.near_known_win``), else None; the positions played are spent either way."""
    if step == 0:
        board, previous = attempt_board(attempt, upto=0), None
    else:  # the position before and the player's action: its known line, followed
        prior = attempt_board(attempt, upto=step - 1)
        action = str(attempt.log[step - 1])
        board = prior.copy()  # with its history: the action may be an undo
        board.push_text(action)
        previous = (prior, action)
    decision = near_known_win(board, budget.known, previous)
    budget.spend(decision.nodes)
    if not decision.winnable:
        return None
    if before is None:
        return _Found(solver.SOLVED, list(decision.line), decision.nodes, LOOK_NODES)
    return _Found(solver.SOLVED, list(decision.line), before.nodes + decision.nodes, before.budget)


def _walk_back(
    winnable_at: int,
    found: dict[int, _Found],
    decided: Callable[[int, int], _Found],
    budget: _Budget,
    keep: int,
) -> int:
    """From the earliest position proven lost after ``winnable_at``, the positions before it
    one by one, proof first (each proof shortened by the later ones': ``_Budget.lost``),
    while they are proven lost; a winnable one met there is the last winnable position, just
    before a proven loss. Stops at the first position neither proven nor won (the binary
    search then works between ``winnable_at`` and it), or when the job's nodes left are
    those kept for ``keep`` positions. The new ``winnable_at``."""
    proven = [s for s, p in found.items() if s > winnable_at and p.status == solver.UNSOLVABLE]
    if not proven:
        return winnable_at
    step = min(proven) - 1
    while step > winnable_at and (nodes := budget.keeping(keep)) > 0:
        status = decided(step, nodes).status
        if status == solver.SOLVED:
            return step
        if status != solver.UNSOLVABLE:
            break
        step -= 1
    return winnable_at


def _where_saved(n: int, found: dict[int, _Found]) -> list[dict[str, int]]:
    """Where a won game spent actions a shorter line would have saved: between two analysed
    positions ``a < b``, the actions played beyond the shortest line found from ``a`` that
    were not still beyond it at ``b`` (the waste made in that stretch), largest first. The
    solver's lines are short, not always shortest, so this is what was found, not a bound."""
    solved = sorted(step for step, position in found.items() if position.status == solver.SOLVED)
    beyond = {step: (n - step) - len(found[step].moves) for step in solved}
    stretches = [
        {"from_step": a, "to_step": b, "actions": beyond[a] - beyond[b]}
        for a, b in itertools.pairwise(solved)
        if beyond[a] - beyond[b] > 0
    ]
    return sorted(stretches, key=lambda s: (-s["actions"], s["from_step"]))


def _positions(found: dict[int, _Found]) -> list[dict[str, Any]]:
    return [
        {
            "step": step,
            "status": position.status,
            "moves_to_win": len(position.moves) if position.status == solver.SOLVED else None,
            "nodes": position.nodes,
            "budget": position.budget,
        }
        for step, position in sorted(found.items())
    ]
