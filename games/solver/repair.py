"""A known winning line, followed after a player's move that left it.

A game's analysis knows a line that wins from one position and asks about the next, one
action of the player's later. Most actions leave most of the line playable: the line is
written by card identity (``tracking.py``: *which card* goes *onto which card*, into an
empty column or a cell), and each step is played where its cards now lie. A step the
player's action has done already is passed over. A step it made impossible (its card or
its target covered, moved or sent elsewhere) is patched, at most ``PATCHES`` times: by
leaving the step out, else by one extra legal move from or to a pile the step names, after
which the line goes on. The result is a line from the new position that the caller still
replays with the engine before trusting it.

Deterministic and bounded in moves played (``max_moves``, patches tried included), never
by a clock: the same positions give the same answer on any machine.
"""

from __future__ import annotations

from games.engine import Board, Move

from .tracking import ON_CARD, TO_CELL, CardMove, Tracked, describe_line

PATCHES = 2  # patches one line may take
REPAIR_MOVES = 20_000  # moves played at most by one repair, patches tried included


class _Budget:
    __slots__ = ("left",)

    def __init__(self, moves: int) -> None:
        self.left = moves

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def follow_after(
    before: Board, line: list[Move], action: Move, max_moves: int = REPAIR_MOVES
) -> tuple[list[Move] | None, int]:
    """A line that wins from ``before`` after ``action``, made from ``line`` (which wins from
    ``before``), or None; and the moves played looking for it."""
    if action.is_undo:
        return None, 0
    tracked = Tracked(before)
    steps = describe_line(before, line)
    tracked.push(action)
    budget = _Budget(max_moves)
    moves = _follow(tracked, steps, 0, PATCHES, budget)
    return moves, max_moves - max(budget.left, 0)


def _follow(
    tracked: Tracked, steps: list[CardMove], n: int, patches: int, budget: _Budget
) -> list[Move] | None:
    """The moves playing ``steps[n:]`` on ``tracked`` (changed) to a win, patched at most
    ``patches`` times, or None."""
    moves: list[Move] = []
    while not tracked.board.is_won:
        if n == len(steps):
            return None
        step = steps[n]
        move = tracked.resolve(step)
        if move is None:
            if _done(tracked, step):
                n += 1
                continue
            if patches == 0:
                return None
            rest = _patched(tracked, steps, n, patches - 1, budget)
            return None if rest is None else moves + rest
        if not budget.spend():
            return None
        tracked.push(move)
        moves.append(move)
        n += 1
    return moves


def _patched(
    tracked: Tracked, steps: list[CardMove], n: int, patches: int, budget: _Budget
) -> list[Move] | None:
    """``steps[n]`` cannot be played here: the line without it, else one extra move first."""
    rest = _follow(tracked.copy(), steps, n + 1, patches, budget)
    if rest is not None:
        return rest
    for extra in _patch_moves(tracked, steps[n]):
        if not budget.spend():
            return None
        branch = tracked.copy()
        branch.push(extra)
        rest = _follow(branch, steps, n, patches, budget)
        if rest is not None:
            return [extra, *rest]
    return None


def _done(tracked: Tracked, step: CardMove) -> bool:
    """The step's card already lies on its target card (the player's move did it)."""
    if step.is_deal or step.kind != ON_CARD:
        return False
    pile, index = tracked.locate(step.card)
    target_pile, target_index = tracked.locate(step.target)
    return pile >= 0 and pile == target_pile and index == target_index + 1


def _patch_moves(tracked: Tracked, step: CardMove) -> list[Move]:
    """Legal moves from or to the piles that ``step`` names: where its card lies, and its
    target card's pile (or the empty column it used); for a deal, the moves that fill an
    empty column (no deal while one is empty)."""
    if step.is_deal:
        tab = tracked.board._tab
        return [
            move
            for move in tracked.board.legal_moves()
            if move.dst < len(tab) and not tab[move.dst]
        ]
    piles = {tracked.locate(step.card)[0]}
    if step.kind == ON_CARD:
        piles.add(tracked.locate(step.target)[0])
    elif step.kind != TO_CELL:
        piles.add(step.target)
    return [move for move in tracked.board.legal_moves() if move.src in piles or move.dst in piles]


__all__ = ["PATCHES", "REPAIR_MOVES", "follow_after"]
