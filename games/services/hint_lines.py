"""Known winning lines, and the way back onto one: the hints' answer without a search.

A *path* is a winning line written from the deal's start: the actions in force (undone
ones gone) of every position along it, then on to the win. The deal's verified solution
is one; each line a hint's search finds is kept as another (the position's actions in
force, then the line found). A position is *on* a path when its actions in force are a
prefix of it: the hint is the path's next action.

A player who leaves every path (one move of their own, a few) usually stands a step or
two from a position on one: the move undone, or a move of the path's own played first.
``rejoin`` looks for such a step with a breadth-first search bounded in nodes (the same
answer on any machine), over every legal action, undo included, and compares positions
by ``Board.position_key`` (everything that decides the game's future), so a path is
joined wherever its position is reached, however the player got there. What it finds is
a winning line, exact, not a guess: the steps, then the path from the position joined.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.engine import Board

REJOIN_DEPTH = 2
REJOIN_NODES = 4000  # positions the search may play, all depths together


def actions_in_force(board: Board) -> list[str]:
    """The board's actions not undone, oldest first, in the engine's own notation."""
    return [str(move) for move in board.move_stack]


def next_on(path: Sequence[str], in_force: Sequence[str]) -> tuple[str, int] | None:
    """(next action, actions left to the win) when ``in_force`` follows ``path``."""
    done = len(in_force)
    if done >= len(path) or list(path[:done]) != list(in_force):
        return None
    return path[done], len(path) - done


@dataclass(frozen=True)
class Rejoined:
    steps: tuple[str, ...]  # from the position asked about to one on a known path
    path: tuple[str, ...]  # the new path: that position's actions in force, then the rest
    rest: int  # the path's actions left from the position joined

    @property
    def moves_to_win(self) -> int:
        return len(self.steps) + self.rest


def _positions_along(start: Board, path: Sequence[str]) -> dict[tuple[object, ...], int]:
    """Each position along ``path`` (replayed from ``start``, the deal's start) by key: how
    many of the path's actions lead to it. Positions past the first refusal are left out
    (a path kept from an older deal with the same id cannot mislead)."""
    board = start.copy(keep_history=False)
    along = {board.position_key(): 0}
    for done, action in enumerate(path, start=1):
        try:
            board.push_text(action)
        except ValueError:
            break
        along.setdefault(board.position_key(), done)
    return along


def rejoin(
    board: Board,
    start: Board,
    paths: Iterable[Sequence[str]],
    *,
    depth: int = REJOIN_DEPTH,
    max_nodes: int = REJOIN_NODES,
) -> Rejoined | None:
    """A known win from ``board``: the fewest steps (at most ``depth``) onto a position of
    one of ``paths``, and among those the fewest actions to the win, then the fewest
    undos; None when no such step is found within ``max_nodes`` positions played.

    ``start`` is the deal's first position, where every path starts."""
    known = [(tuple(path), _positions_along(start, path)) for path in paths if path]
    if not known:
        return None
    best: tuple[int, int, tuple[str, ...], tuple[str, ...], int] | None = None
    frontier: list[tuple[Board, tuple[str, ...]]] = [(board, ())]
    nodes = 0
    for _ in range(depth):
        after: list[tuple[Board, tuple[str, ...]]] = []
        for position, steps in frontier:
            for action in position.legal_actions():
                if nodes >= max_nodes:
                    break
                nodes += 1
                child = position.copy()
                child.push_text(action)
                taken = (*steps, action)
                key = child.position_key()
                for path, along in known:
                    done = along.get(key)
                    if done is None or done >= len(path):
                        continue
                    rest = len(path) - done
                    rank = (len(taken) + rest, taken.count("undo"))
                    if best is None or rank < best[:2]:
                        new_path = (*actions_in_force(child), *path[done:])
                        best = (*rank, taken, new_path, rest)
                after.append((child, taken))
        if best is not None or nodes >= max_nodes:
            break
        frontier = after
    if best is None:
        return None
    return Rejoined(steps=best[2], path=best[3], rest=best[4])


@dataclass(frozen=True)
class KnownWin:
    action: str
    moves_to_win: int
    new_path: tuple[str, ...] | None  # to keep for the next hints (None: a path already kept)


def known_win(board: Board, start: Board, paths: Sequence[Sequence[str]]) -> KnownWin | None:
    """The hint from the known paths alone: the next action when ``board`` is on one, else
    the first step of ``rejoin``; None when the solver must search."""
    in_force = actions_in_force(board)
    for path in paths:
        found = next_on(path, in_force)
        if found is not None:
            return KnownWin(*found, None)
    rejoined = rejoin(board, start, paths)
    if rejoined is None:
        return None
    return KnownWin(rejoined.steps[0], rejoined.moves_to_win, rejoined.path)
