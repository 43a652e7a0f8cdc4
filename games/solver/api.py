"""``solve``, ``verify`` and ``difficulty``: what the rest of the project calls."""

from __future__ import annotations

import math
import resource
import sys
from dataclasses import dataclass, field
from typing import Any

from games.engine import Board, Move, Variant, replay, replay_on

from .clock import now
from .heuristic import SPIDER, STAGED
from .improve import improve as improve_line
from .outcome import Status, StopReason
from .search import ProgressCallback, SearchOutcome, best_first, deal_waits_for_a_column
from .shorten import shorten
from .staged import staged_search

# Bump when a change can alter a result (the line found, its length, the effort): difficulty
# numbers are comparable only within one version.
SOLVER_VERSION = 9

SOLVED = Status.SOLVED
UNSOLVABLE = Status.UNSOLVABLE
UNKNOWN = Status.UNKNOWN

# Share of the memory limit given to the search tables; the rest is the interpreter and slack.
TABLE_SHARE = 0.7
# Time kept for shortening a line found near the limit (shortening never needs much).
SHORTEN_SHARE = 0.15
# Spider 1 suit: positions for the flat focused search before the staged one takes over.
FLAT_FIRST_NODES = 30_000


@dataclass(slots=True)
class SolveResult:
    status: Status
    moves: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    peak_memory_mb: float = 0.0
    reason: str = ""  # a StopReason, or empty
    raw_length: int = 0  # length of the line the search found, before shortening
    proven_seconds: float = 0.0  # when the first winning line was found and shortened
    first_par: int | None = None  # that line's length, before the improve phase
    improve_nodes: int = 0  # positions the improve phase generated (not in ``nodes``)

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    @property
    def par(self) -> int | None:
        return len(self.moves) if self.solved else None

    def as_dict(self) -> dict[str, Any]:
        """docs/rules.md's solver object (status, moves, nodes, seconds), then par and memory."""
        return {
            "status": self.status,
            "moves": list(self.moves),
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "par": self.par,
            "peak_memory_mb": round(self.peak_memory_mb, 1),
        }


def _max_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _start_board(position: Board | tuple[Variant | str, int]) -> Board:
    if isinstance(position, Board):
        # The line is from this position: nothing before it can be undone.
        return position.copy(keep_history=False)
    variant, seed = position
    return Board.deal(variant, seed)


# The pipeline's improve budget (the default of SOLVER_IMPROVE_NODES, config/env.py) and so
# the command line's: the par a day's players see is the line found with it.
DEFAULT_IMPROVE_NODES = 3_000_000
# The pipeline's limit on the search that proves a deal (the default of SOLVER_NODES) and
# so the command line's: past it the deal is unknown, on any machine that gets that far.
DEFAULT_MAX_NODES = 2_000_000


def solve(
    position: Board | tuple[Variant | str, int],
    *,
    seconds: float = 60.0,
    max_nodes: int | None = None,
    max_memory_mb: int = 1024,
    progress: ProgressCallback | None = None,
    progress_every: int = 50_000,
    improve_nodes: int = 0,
    fill_for_deal: bool = False,
) -> SolveResult:
    """Find a winning line from a board or a ``(variant, seed)`` deal, within the limits.

    ``solved`` only when the engine's checked replay of the line wins; ``unsolvable`` only
    when an unpruned search was exhausted; otherwise ``unknown`` (see ``reason``).
    ``max_nodes`` bounds the search that proves the deal (``nodes``), not the improve
    phase. With ``improve_nodes``, up to that many positions (and the time left) go to
    finding a shorter line once the deal is proven (``improve.py``): the pipeline's
    verification wants it, a hint does not. ``fill_for_deal`` (hints and the analysis: a
    player often stops there) lets the searches split a run into an empty column that holds
    up a deal when ``start`` has nothing face down (``search.Expander``), and skips Spider 1
    suit's flat search, which never deals there; a deal's own verification does without.
    """
    began = now()  # the searches' clock (clock.py): their deadlines are read on it
    rss_before = _max_rss_mb()
    start = _start_board(position)
    deadline = began + seconds
    search_deadline = deadline - min(1.0, seconds * SHORTEN_SHARE)
    cap = int(max_memory_mb * 1024 * 1024 * TABLE_SHARE)
    outcome = _search(
        start, search_deadline, max_nodes, cap, progress, progress_every, fill_for_deal
    )
    status = outcome.status
    moves: list[Move] = outcome.moves
    raw_length = len(moves)
    first_par: int | None = None
    proven = 0.0
    improve_used = 0
    if status == SOLVED:
        # (``improve_nodes`` is the phase's own: ``max_nodes`` bounded the proving search)
        # with an improve phase the line is shortened thoroughly at its end: here only the
        # cheap passes, so that the deal is proven as soon as the search is done
        moves = shorten(start, moves, deadline, quick=improve_nodes > 0)
        first_par = len(moves)
        proven = now() - began
        if improve_nodes > 0:
            better = improve_line(
                start,
                moves,
                deadline=deadline,
                max_nodes=improve_nodes,
                memory_cap_bytes=cap,
                beams_done=outcome.beam_widths,
                progress=progress,
                progress_every=progress_every,
            )
            improve_used = better.nodes
            shorter = shorten(start, better.moves, deadline, thorough=True)
            if _replays_to_win(start, shorter):
                moves = shorter
        if not _replays_to_win(start, moves):
            status, moves = UNKNOWN, []
    memory = max(outcome.table_bytes / (1024 * 1024), _max_rss_mb() - rss_before)
    return SolveResult(
        status=status,
        moves=[str(move) for move in moves] if status == SOLVED else [],
        nodes=outcome.nodes,
        seconds=now() - began,
        peak_memory_mb=memory,
        reason=StopReason.BOOKKEEPING if status != outcome.status else outcome.reason,
        raw_length=raw_length,
        proven_seconds=proven,
        first_par=first_par,
        improve_nodes=improve_used,
    )


def _search(
    start: Board,
    deadline: float,
    max_nodes: int | None,
    cap: int,
    progress: ProgressCallback | None,
    progress_every: int,
    fill_for_deal: bool,
) -> SearchOutcome:
    """Staged search while stock remains, then the flat searches (the only exhaustive one last).

    Spider 1 suit keeps the flat focused search first: it solves most of those deals at
    once, and the staged search is its fallback.
    """
    weights = STAGED if start.variant.cells else SPIDER
    # only from such a position: from an opening the usual searches win sooner without it
    fill_for_deal = fill_for_deal and deal_waits_for_a_column(start)
    common: dict[str, Any] = {
        "deadline": deadline,
        "memory_cap_bytes": cap,
        "progress": progress,
        "progress_every": progress_every,
        "fill_for_deal": fill_for_deal,
    }
    nodes = 0
    stock_left = start._stock_pos < len(start._stock)
    if stock_left and start.variant.id == "spider1" and not fill_for_deal:
        budget = FLAT_FIRST_NODES if max_nodes is None else min(max_nodes, FLAT_FIRST_NODES)
        first = best_first(start, max_nodes=budget, weights=weights, **common)
        # a pruned search that ran dry (e.g. empty columns to fill before the last deal, by
        # moves the focused filter judges pointless) goes on to the searches below
        gave_up = first.reason in (StopReason.NODE_LIMIT, StopReason.PRUNED_EXHAUSTED)
        if first.status != UNKNOWN or not gave_up or _left(max_nodes, first.nodes) == 0:
            return first
        nodes += first.nodes
    if stock_left:
        staged = staged_search(start, max_nodes=_left(max_nodes, nodes), **common)
        staged.nodes += nodes
        if staged.status == SOLVED or staged.reason != StopReason.STAGED_EXHAUSTED:
            return staged
        nodes = staged.nodes
    outcome = best_first(start, max_nodes=_left(max_nodes, nodes), weights=weights, **common)
    outcome.nodes += nodes
    if outcome.status == UNKNOWN and outcome.reason == StopReason.PRUNED_EXHAUSTED:
        # the focused search gave up on moves it judged pointless: try them all now
        full = best_first(
            start,
            max_nodes=_left(max_nodes, outcome.nodes),
            focused=False,
            weights=weights,
            **common,
        )
        full.nodes += outcome.nodes
        outcome = full
    return outcome


def _left(max_nodes: int | None, used: int) -> int | None:
    return None if max_nodes is None else max(0, max_nodes - used)


def _replays_to_win(start: Board, moves: list[Move]) -> bool:
    board = start.copy()
    result = replay_on(board, [str(move) for move in moves])
    return result.ok and result.won


def verify(variant: Variant | str, seed: int, moves: list[str]) -> bool:
    """Whether the engine's checked replay of ``moves`` on the deal ends in a win."""
    try:
        result = replay(variant, seed, list(moves))
    except ValueError:
        return False
    return result.ok and result.won


EASY_BELOW = 40.0
HARD_FROM = 60.0
# (easy below, hard from) per variant: the thirds of the difficulty numbers of the deals
# solved in the bench/solver_bench.py runs of docs/benchmarks.md ("Pars: shorter lines"), as
# printed in the summary's "difficulty_thirds": SOLVER_VERSION 7, 60 s a deal, astrocyte
# 1-200 with a 700,000-position improve phase, spider1/2 1-30 with the default one; spider4
# 1-30 with version 8's default phase. Version 8's pars are a few moves shorter (numbers
# about 0.2-0.5 lower). A label says how a deal compares with the others of its variant; the
# number compares across variants.
THRESHOLDS: dict[str, tuple[float, float]] = {
    "astrocyte": (52.0, 58.1),
    "spider1": (42.1, 49.7),
    "spider2": (46.5, 47.3),
    "spider4": (49.4, 55.7),
}


def difficulty(result: SolveResult, variant: str | None = None) -> tuple[str, float]:
    """(easy | medium | hard, a number) from the search effort and the par.

    Deterministic for a deal and a SOLVER_VERSION: nodes and par do not depend on timing
    unless a limit was hit, and an unsolved deal is always "hard" with no par term. The
    label's thresholds are the variant's own when it is given.
    """
    effort = 10.0 * math.log10(1 + result.nodes)
    length = (result.par or 0) / 10.0
    number = round(effort + length, 1)
    easy_below, hard_from = THRESHOLDS.get(variant or "", (EASY_BELOW, HARD_FROM))
    if not result.solved:
        return "hard", number
    if number < easy_below:
        return "easy", number
    if number < hard_from:
        return "medium", number
    return "hard", number
