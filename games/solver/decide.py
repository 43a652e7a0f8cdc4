"""Deciding a position: winnable (with a line the engine replays to a win), unwinnable (a
proof: the complete search exhausted) or unknown (the node budget ran out).

Two phases, each with the same budget in positions, so a position gets the same verdict on
any machine: first the heuristic solver (``api.solve``, no time limit that could bind),
which finds most wins quickly; then, when it found none, the complete search
(``complete.exhaust``), which either finds a win too or proves that there is none. Only the
complete search ever says unwinnable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from games.engine import Board, Move, replay_on

from .api import solve
from .complete import PROOF_RULES, exhaust, position_class
from .repair import REPAIR_MOVES, follow_after
from .shorten import cut_loops, take_shortcuts

DEFAULT_DECIDE_NODES = 1_000_000  # for each phase
# No clock may decide a verdict: the heuristic phase's time limit is out of reach.
NO_TIME_LIMIT = 1e9


class Verdict(StrEnum):
    WINNABLE = "winnable"
    UNWINNABLE = "unwinnable"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict
    line: list[str] = field(default_factory=list)  # winnable: the actions, replayed to a win
    nodes: int = 0  # positions the two phases searched, together
    rules: tuple[str, ...] = ()  # unwinnable: the pruning rules the proof relied on

    @property
    def winnable(self) -> bool:
        return self.verdict == Verdict.WINNABLE

    @property
    def unwinnable(self) -> bool:
        return self.verdict == Verdict.UNWINNABLE

    def as_dict(self) -> dict[str, Any]:
        """The command line's JSON: the line when winnable, nodes and rules when proven lost,
        nodes when unknown."""
        if self.verdict == Verdict.WINNABLE:
            return {"verdict": str(self.verdict), "line": list(self.line)}
        if self.verdict == Verdict.UNWINNABLE:
            return {"verdict": str(self.verdict), "nodes": self.nodes, "rules": list(self.rules)}
        return {"verdict": str(self.verdict), "nodes": self.nodes}


NEAR_DEPTH = 2  # moves from a position to one known winnable, at most
NEAR_NODES = 4_000  # positions played looking for one, all depths together
# A first look at a position after a known winnable one: its line followed, then the above.
LOOK_NODES = REPAIR_MOVES + NEAR_NODES


class KnownWins:
    """Positions of one deal known to be winnable, each with the rest of a line that wins
    from it (exact positions: a line names columns and cells, so a relabelled position is
    not the same). Every position along a line found is known, not only its first."""

    def __init__(self) -> None:
        self.lines: dict[tuple[object, ...], tuple[str, ...]] = {}

    def add(self, start: Board, line: list[str]) -> None:
        board = start.copy(keep_history=False)
        line = list(line)
        for done, action in enumerate(line):
            rest = tuple(line[done:])
            known = self.lines.get(board.position_key())
            if known is None or len(rest) < len(known):
                self.lines[board.position_key()] = rest
            board.push_text(action)

    def learn(self, start: Board, line: list[str]) -> bool:
        """Add ``line`` from ``start`` (e.g. the deal's stored solution) when the engine
        replays it to a win, and say whether it did."""
        if not _wins(start, line):
            return False
        self.add(start, line)
        return True

    def followed(self, before: Board, action: str) -> tuple[list[str] | None, int]:
        """A line from the position after ``action`` played from ``before``: ``before``'s
        known line followed by card identity (``repair.follow_after``), or None; and the
        moves played looking for it."""
        known = self.lines.get(before.position_key())
        if known is None:
            return None, 0
        variant = before.variant
        moves = [Move.parse(text, variant) for text in known]
        line, played = follow_after(before, moves, Move.parse(action, variant))
        return (None if line is None else [str(move) for move in line]), played

    def near(self, start: Board) -> tuple[list[str] | None, int]:
        """A line from ``start`` through a known position: the fewest moves onto one (at
        most ``NEAR_DEPTH``, breadth first, ``NEAR_NODES`` positions played at most), then
        its known rest; and the positions played."""
        if not self.lines:
            return None, 0
        known = self.lines.get(start.position_key())
        if known is not None:
            return list(known), 0
        frontier: list[tuple[Board, tuple[str, ...]]] = [(start, ())]
        nodes = 0
        for _ in range(NEAR_DEPTH):
            after: list[tuple[Board, tuple[str, ...]]] = []
            for position, steps in frontier:
                for move in position.legal_moves():
                    if nodes >= NEAR_NODES:
                        return None, nodes
                    nodes += 1
                    child = position.copy(keep_history=False)
                    child.push(move)
                    taken = (*steps, str(move))
                    rest = self.lines.get(child.position_key())
                    if rest is not None:
                        return [*taken, *rest], nodes
                    after.append((child, taken))
            frontier = after
        return None, nodes


def decide(
    start: Board,
    max_nodes: int = DEFAULT_DECIDE_NODES,
    lost: set[bytes] | None = None,
    proof_first: bool = False,
    known: KnownWins | None = None,
    one_phase: bool = False,
) -> Decision:
    """The verdict on ``start`` (left alone; its history is not part of the position) with
    ``max_nodes`` positions for each phase. ``lost``: classes of the same deal proven lost
    by earlier decisions, kept up to date by this one (``complete.exhaust``); a start among
    them is unwinnable at once. ``proof_first``: the complete search before the heuristic
    one (for a position expected lost, e.g. just before one proven lost: the proof then
    often costs little, where the heuristic search would spend its whole budget).
    ``known``: positions of the same deal known winnable; a start a move or two from one is
    winnable at once (the moves, then its line), and every winnable verdict adds its line.
    ``one_phase``: only the first phase (the complete search when ``proof_first``, else the
    heuristic one), for a caller that knows which of the two a position needs."""
    board = start.copy(keep_history=False)
    if board.is_won:
        return Decision(Verdict.WINNABLE, [], 0)
    if lost is not None and position_class(board) in lost:
        return Decision(Verdict.UNWINNABLE, [], 0, PROOF_RULES)
    used = 0
    if known is not None:
        near = near_known_win(board, known)
        if near.winnable:
            return near
        used = near.nodes
    decision = _search(board, max_nodes, lost, proof_first, one_phase)
    decision = replace(decision, nodes=used + decision.nodes)
    if known is not None and decision.winnable:
        known.add(board, decision.line)
    return decision


def near_known_win(
    start: Board, known: KnownWins, previous: tuple[Board, str] | None = None
) -> Decision:
    """Only ``decide``'s first look: winnable when a move or two lead onto a known winnable
    position, or (``previous``: the position before ``start`` and the action between) when
    the previous position's known line, followed after that action, wins from ``start``;
    else unknown. ``nodes``: the positions played."""
    board = start.copy(keep_history=False)
    nodes = 0
    if previous is not None:
        line, nodes = known.followed(*previous)
        if line is not None and _wins(board, line):
            known.add(board, line)
            return Decision(Verdict.WINNABLE, line, nodes)
    line, played = known.near(board)
    nodes += played
    if line is not None and _wins(board, line):
        known.add(board, line)
        return Decision(Verdict.WINNABLE, line, nodes)
    return Decision(Verdict.UNKNOWN, [], nodes)


def _search(
    board: Board, max_nodes: int, lost: set[bytes] | None, proof_first: bool, one_phase: bool
) -> Decision:
    used = 0
    if proof_first:
        complete = prove_lost(board, max_nodes, lost)
        if complete.verdict != Verdict.UNKNOWN or one_phase:
            return complete
        used = complete.nodes
    found = solve(board, seconds=NO_TIME_LIMIT, max_nodes=max_nodes, fill_for_deal=True)
    used += min(found.nodes, max_nodes)
    if found.solved and _wins(board, found.moves):
        return Decision(Verdict.WINNABLE, list(found.moves), used)
    if proof_first or one_phase:
        return Decision(Verdict.UNKNOWN, [], used)
    complete = prove_lost(board, max_nodes, lost)
    return replace(complete, nodes=used + complete.nodes)


def prove_lost(start: Board, max_nodes: int, lost: set[bytes] | None = None) -> Decision:
    """The complete search alone (``decide``'s second phase) with ``max_nodes`` classes of
    positions: unwinnable when it ran out of positions to visit, winnable with a line the
    engine replays to a win, unknown when the budget ran out first. ``nodes`` is the proof's
    size: the classes it expanded, the start included. The deal verification runs it once
    the heuristic solver has exhausted its own search (games/services/deals.py)."""
    board = start.copy(keep_history=False)
    if board.is_won:
        return Decision(Verdict.WINNABLE, [], 0)
    search = exhaust(board, max_nodes, lost)
    if search.moves is not None:
        moves = _shorter(board, search.moves)
        line = [str(move) for move in moves]
        if _wins(board, line):
            return Decision(Verdict.WINNABLE, line, search.nodes)
        return Decision(Verdict.UNKNOWN, [], search.nodes)  # never expected: the engine disagreed
    if search.exhausted:
        return Decision(Verdict.UNWINNABLE, [], search.nodes, PROOF_RULES)
    return Decision(Verdict.UNKNOWN, [], search.nodes)


def _shorter(start: Board, moves: list[Move]) -> list[Move]:
    """The depth-first line without its detours (loops and one-move shortcuts, each pass
    checked by the engine; neither depends on a clock)."""
    return take_shortcuts(start, cut_loops(start, moves), math.inf)


def _wins(start: Board, line: list[str]) -> bool:
    result = replay_on(start.copy(keep_history=False), list(line))
    return result.ok and result.won


__all__ = [
    "DEFAULT_DECIDE_NODES",
    "LOOK_NODES",
    "Decision",
    "KnownWins",
    "Verdict",
    "decide",
    "near_known_win",
    "prove_lost",
]
