"""The "improve par" phase: once a deal is proven, look for a shorter winning line.

The first line comes from a greedy search that ranks positions by how far they look from a
win and never by how many moves led there, so it is often a third longer than it needs to
be; local shortening (``shorten.py``) only removes detours a few moves long. Here, in the
order of ``IMPROVE_STEPS``:

- a **beam search by line length** (``beam.py``) ranked by the moves still to make, with a
  beam per number of deals made, at two widths; each is bounded by the best line so far
  (no line as long is looked at). This is where the first short line comes from;
- the same beam again from later positions of the best line, from the end back, each
  bounded by what is left of the line: a beam that starts from a good position late in the
  game spends its whole width on the rest (version 8: 3-4 % shorter pars on Spider 4 suits,
  about 1.5 % on Astrocyte);
- the stockless end of the best line searched again with a cost per move;
- the staged search again with a cost per move in every ranking (``Round.move_cost``) and
  bounded by the best line (``StagedSearch.longest``), with every weighting of the
  portfolio in turn: a fallback for the deals where a beam loses every line.

Every line found is shortened and must be replayed to a win by the engine (``Board.refusal``
at each move, here and in ``solve``'s final check) before it replaces the best one. The
phase stops at its deadline, at its node budget or when the schedule is done; the best line
so far is kept. Budgets are in positions, so the result is the same on every run that the
deadline does not cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Board, Move
from games.engine.moves import DEAL_CODE

from .beam import beam_search
from .clock import now
from .heuristic import ENDGAME
from .search import Progress, ProgressCallback, ProgressReporter, best_first
from .shorten import shorten, wins
from .staged import PORTFOLIO, PORTFOLIO_CELLS, Round, StagedSearch, Stopped

# What the phase tries, in order. ("beam", width, positions): the beam search by line
# length (``beam.py``), ranked by the moves still to make. It gives the par on almost every
# deal: on Spider 4 suits seeds 1-10 a median of 137.5 at width 100 and 128 at width 200
# (9 of 10 deals; the tenth kept width 100's), against 177 with the steps of
# ``FALLBACK_STEPS`` alone, which found nothing shorter after the beams on the deals tried.
#
# ("suffix", width, every, positions): the beam again from every ``every``-th position of
# the best line, the last first, bounded by what is left of the line (the moves before it
# are kept). Spider 4 suits seeds 1-10, from the two beams' lines (1,304 moves in all):
# 1,271 at width 200 every 10 (1,500,000 positions a deal at most; about 1,100,000 used),
# 1,265 with 3,000,000, 1,266 at width 400, 1,272 at width 100 every 5. Astrocyte 1-10:
# 1,328 -> 1,319 at width 100 (its beams cost twice as much: cells give more children).
IMPROVE_STEPS: tuple[tuple[Any, ...], ...] = (
    ("beam", 100, 1_000_000),
    ("beam", 200, 1_500_000),
    ("suffix", 200, 10, 1_500_000),
)
# Tried only when no beam found a line (a beam keeps only the best of each layer and can
# lose every winning line, or the budget may stop it). ("endgame", move cost, positions):
# the stockless end of the best line searched again. ("staged", move cost, beam, stage
# positions, final positions): the staged search with a cost per move, with every
# weighting of the portfolio in turn.
FALLBACK_STEPS: tuple[tuple[Any, ...], ...] = (
    ("staged", 1, 1, 1_000, 5_000),
    ("endgame", 2, 30_000),
    ("staged", 1, 1, 2_000, 10_000),
    ("endgame", 3, 30_000),
)
# The two beams generate 1,100,000-2,000,000 positions on Astrocyte (about twice the Spider
# 4 suits figure), so the pipeline gives the phase SOLVER_IMPROVE_NODES (3,000,000 by
# default) within SOLVER_SECONDS: on Astrocyte the later beams get what the first two left.


@dataclass(slots=True)
class Improved:
    moves: list[Move]
    nodes: int = 0
    tries: int = 0  # searches run
    found: int = 0  # shorter lines found


class _Budget(Exception):
    """The deadline or the node budget is reached."""


class _Improver:
    def __init__(
        self,
        start: Board,
        moves: list[Move],
        deadline: float,
        max_nodes: int | None,
        cap: int,
        beams_done: tuple[int, ...],
        reporter: ProgressReporter,
    ) -> None:
        self.start = start
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.cap = cap
        self.result = Improved(list(moves))
        self.portfolio = PORTFOLIO_CELLS if start.variant.cells else PORTFOLIO
        self.beams_done = beams_done
        self.reporter = reporter

    def tick(self, step_nodes: int, waiting: int) -> None:
        """Progress: the phase's positions (``step_nodes`` are the running search's) and the
        best line's length."""
        self.reporter(self.result.nodes + step_nodes, waiting, 0, len(self.result.moves))

    def relay(self, report: Progress) -> None:
        self.tick(report.nodes, report.open_nodes)

    def left(self) -> int | None:
        """Positions left in the budget; raises when the phase must stop."""
        left = None if self.max_nodes is None else self.max_nodes - self.result.nodes
        if now() >= self.deadline or (left is not None and left <= 0):
            raise _Budget
        self.result.tries += 1
        return left

    def offer(self, line: list[Move] | None, start: Board | None = None, prefix: int = 0) -> None:
        """Keep ``line`` (from ``start``, after the best line's first ``prefix`` moves) if
        the whole line is then shorter and the engine replays it to a win."""
        if not line:
            return
        best = self.result.moves
        line = best[:prefix] + shorten(start or self.start, line, self.deadline)
        if len(line) < len(best) and wins(self.start, line):
            self.result.moves = line
            self.result.found += 1

    def after(self, prefix: int) -> Board:
        """The position after the best line's first ``prefix`` moves."""
        board = self.start.copy(keep_history=False)
        for move in self.result.moves[:prefix]:
            board.push(move)
        return board

    def staged(self, cost: int, beam: int, stage_nodes: int, final_nodes: int) -> None:
        for weights in self.portfolio:
            search = StagedSearch(
                self.start,
                deadline=self.deadline,
                max_nodes=self.left(),
                memory_cap_bytes=self.cap,
                progress=self.relay,
                progress_every=self.reporter.every,
            )
            search.longest = len(self.result.moves)
            try:
                line = search.round(Round(beam, stage_nodes, final_nodes, weights, ENDGAME, cost))
            except Stopped:
                line = None
            self.result.nodes += search.total_nodes()
            self.offer(line)

    def endgame(self, cost: int, nodes: int) -> None:
        best = self.result.moves
        deals = [i for i, move in enumerate(best) if move.src == DEAL_CODE]
        last = deals[-1] + 1 if deals else 0
        board = self.after(last)
        left = self.left()
        outcome = best_first(
            board,
            deadline=self.deadline,
            max_nodes=nodes if left is None else min(nodes, left),
            memory_cap_bytes=self.cap,
            weights=ENDGAME,
            macros=len(self.start.variant.suits) > 1,
            move_cost=cost,
            longest=len(best) - last,
            progress=self.relay,
            progress_every=self.reporter.every,
        )
        self.result.nodes += outcome.nodes
        self.offer(outcome.moves, board, last)

    def beam(self, width: int, nodes: int) -> None:
        if width in self.beams_done:
            return  # the proof ran it: the same layers, so nothing shorter
        self._beam_from(self.start, 0, width, nodes)

    def suffix(self, width: int, every: int, nodes: int) -> None:
        until = self.result.nodes + nodes
        # from the end back: the late beams are cheap, and a shorter end bounds the
        # earlier beams more tightly (the positions before a cut are unchanged)
        prefix = (len(self.result.moves) // every - 1) * every
        while prefix > 0 and self.result.nodes < until:
            self._beam_from(self.after(prefix), prefix, width, until - self.result.nodes)
            prefix -= every

    def _beam_from(self, board: Board, prefix: int, width: int, nodes: int) -> None:
        """The beam from ``board``, the position after the best line's first ``prefix``
        moves, for a shorter rest of the line."""
        left = self.left()
        line, used = beam_search(
            board,
            width=width,
            longest=len(self.result.moves) - prefix,
            max_nodes=nodes if left is None else min(nodes, left),
            deadline=self.deadline,
            memory_cap_bytes=self.cap,
            tick=self.tick,
        )
        self.result.nodes += used
        self.offer(line, board, prefix)


def improve(
    start: Board,
    moves: list[Move],
    *,
    deadline: float,
    max_nodes: int,
    memory_cap_bytes: int,
    beams_done: tuple[int, ...] = (),
    progress: ProgressCallback | None = None,
    progress_every: int = 50_000,
    steps: Sequence[tuple[Any, ...]] = IMPROVE_STEPS,
) -> Improved:
    """A winning line from ``start`` no longer than ``moves`` (which must win), within
    ``max_nodes`` positions and the deadline. ``beams_done``: widths of the beam search
    the proof already ran from ``start`` (they are not run again). ``progress`` gets the
    phase's positions and the best line's length (``Progress.par``) about every
    ``progress_every`` positions. ``steps``: what to try, in order (``IMPROVE_STEPS``)."""
    reporter = ProgressReporter(progress, progress_every)
    improver = _Improver(start, moves, deadline, max_nodes, memory_cap_bytes, beams_done, reporter)
    if start._stock_pos >= len(start._stock) or not moves:
        return improver.result  # a stockless position: the staged search does not apply
    try:
        for kind, *numbers in steps:
            getattr(improver, kind)(*numbers)
        if not improver.result.found:
            for kind, *numbers in FALLBACK_STEPS:
                getattr(improver, kind)(*numbers)
    except _Budget:
        pass
    return improver.result
