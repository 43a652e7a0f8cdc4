"""Re-search between two positions of a line: the shortest way from position i to position j.

For a window of the line (moves i..j-1, no deal among them), an iterative-deepening A*
(IDA*) looks for a path from position i to exactly position j in fewer than j - i moves;
if it finds one, the window is replaced by it (the positions after j are the same, so the
rest of the line is untouched).

The estimate: describe a position by the pairs (card, what it lies on), where "what it lies
on" is the card under it, the bottom of column k, or cell k. A move changes the pair of one
card only, the bottom card of the group it moves (the cards above it keep theirs); so the
number of pairs of the current position that the target lacks (as multisets: two decks
hold equal cards) is a lower bound on the moves left, except when a run goes home (then 13
pairs go at once, which can only make the search less exact, never wrong). When the count
is 0 and the layout is the target's, the window is done.

Each window search has a node budget; the result is the same on every run unless the
deadline (checked every few dozen nodes) stops it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine import Board, Move
from games.engine.moves import CELL, DEAL_CODE, FOUNDATION

from .clock import now
from .search import CHECK_EVERY

# pairs: (card, what it lies on); "what" is a card code (< 64), BOTTOM + column, CELL_AT + cell
BOTTOM = 100
CELL_AT = 200

Pair = tuple[int, int]


def line_key(board: Board) -> tuple[Any, ...]:
    """Equal for equal positions of one line (same stock): cheaper than ``position_key``."""
    return (
        tuple(map(tuple, board._tab)),
        tuple(board._down),
        tuple(board._cells),
        tuple(map(tuple, board._found)),
        board._stock_pos,
    )


def _pairs(board: Board) -> list[Pair]:
    pairs: list[Pair] = []
    for j, column in enumerate(board._tab):
        under = BOTTOM + j
        for card in column:
            pairs.append((card, under))
            under = card
    for c, card in enumerate(board._cells):
        if card:
            pairs.append((card, CELL_AT + c))
    return pairs


class _Excess:
    """How many of each pair the position has beyond the target's; ``h`` the positive sum."""

    __slots__ = ("count", "h")

    def __init__(self, board: Board, target: Board) -> None:
        count: dict[Pair, int] = {}
        for pair in _pairs(target):
            count[pair] = count.get(pair, 0) - 1
        for pair in _pairs(board):
            count[pair] = count.get(pair, 0) + 1
        self.count = count
        self.h = sum(value for value in count.values() if value > 0)

    def add(self, pair: Pair) -> None:
        value = self.count.get(pair, 0) + 1
        self.count[pair] = value
        if value > 0:
            self.h += 1

    def remove(self, pair: Pair) -> None:
        value = self.count.get(pair, 0)
        if value > 0:
            self.h -= 1
        self.count[pair] = value - 1

    def change(self, removed: list[Pair], added: list[Pair]) -> None:
        """A move's change of pairs (``_changes``)."""
        for pair in removed:
            self.remove(pair)
        for pair in added:
            self.add(pair)

    def change_back(self, removed: list[Pair], added: list[Pair]) -> None:
        for pair in added:
            self.remove(pair)
        for pair in removed:
            self.add(pair)


def _changes(board: Board, move: Move) -> tuple[list[Pair], list[Pair]]:
    """The pairs ``move`` (just played on ``board``) removed and added."""
    src, dst, count = move.src, move.dst, move.count
    removed: list[Pair] = []
    added: list[Pair] = []
    record = board._stack[-1]
    homes = record[-1]
    # where the group's bottom card lay before the move
    if src < CELL:
        column = board._tab[src]
        under = column[-1] if column else BOTTOM + src
        # a card turned over by the move is the same card in the same place: same pair
    elif src < FOUNDATION:
        under = CELL_AT + (src - CELL)
    else:
        under = -1  # from a foundation: no pair before
    if dst < CELL:
        column = board._tab[dst]
        if homes:
            # the group joined a run that went home: the run's pairs are gone, the group's
            # bottom card included (it was never seen in its new place)
            _, k = homes[0]
            run = board._found[k]
            card = run[-count]
            below = column[-1] if column else BOTTOM + dst
            if under >= 0:
                removed.append((card, under))
            removed.append((run[0], below))
            removed.extend((run[i], run[i - 1]) for i in range(1, len(run) - count))
            removed.extend((run[i], run[i - 1]) for i in range(len(run) - count + 1, len(run)))
            return removed, added
        card = column[-count]
        new_under = column[-count - 1] if len(column) > count else BOTTOM + dst
    else:
        card = board._cells[dst - CELL]
        new_under = CELL_AT + (dst - CELL)
    if under >= 0:
        removed.append((card, under))
    added.append((card, new_under))
    return removed, added


# Whether a window may end at this position, reached by these moves (``WindowSearch``).
Accept = Callable[[Board, list[Move]], bool]


class WindowSearch:
    """IDA* from ``start`` towards ``target``, the pairs ``target`` lacks as the estimate.

    A position with at most ``slack`` such pairs ends the search when ``accept`` says so
    (by default: exactly the target's layout); the estimate is the pairs beyond the slack.
    With ``slack`` 0 and no ``accept`` the estimate is a lower bound and the path found is
    the shortest to exactly ``target``; bench/relaxed_window_bench.py accepts positions
    near it from which the rest of a line still wins."""

    def __init__(
        self,
        start: Board,
        target: Board,
        budget: int,
        deadline: float,
        slack: int = 0,
        accept: Accept | None = None,
    ) -> None:
        self.deadline = deadline
        self.board = start.copy(keep_history=False)
        self.target_key = line_key(target)
        self.excess = _Excess(self.board, target)
        self.budget = budget
        self.nodes = 0
        self.path: list[Move] = []
        self.seen: dict[tuple[Any, ...], int] = {}
        self.slack = slack
        self.accept = accept

    def at_target(self) -> bool:
        if self.accept is not None:
            return self.accept(self.board, self.path)
        return line_key(self.board) == self.target_key

    def run(self, shorter_than: int) -> list[Move] | None:
        bound = max(0, self.excess.h - self.slack)
        while bound < shorter_than and self.nodes < self.budget:
            self.seen.clear()
            if self.dive(0, bound):
                return list(self.path)
            bound += 1
        return None

    def dive(self, g: int, bound: int) -> bool:
        board = self.board
        excess = self.excess
        slack = self.slack
        if excess.h <= slack and self.at_target():
            return True
        if g + max(0, excess.h - slack) > bound or self.nodes >= self.budget:
            return False
        if self.nodes % CHECK_EVERY == 0 and now() >= self.deadline:
            self.budget = self.nodes  # stop here: the window keeps its moves
            return False
        key = line_key(board)
        if self.seen.get(key, bound + 1) <= g:
            return False
        self.seen[key] = g
        scored: list[tuple[int, int, Move]] = []
        for order, move in enumerate(board.legal_moves()):
            if move.src == DEAL_CODE:
                continue
            board.push(move)
            removed, added = _changes(board, move)
            excess.change(removed, added)
            scored.append((excess.h, order, move))
            excess.change_back(removed, added)
            board.pop()
        scored.sort()
        for h, _, move in scored:
            if g + 1 + max(0, h - slack) > bound:
                break
            self.nodes += 1
            board.push(move)
            removed, added = _changes(board, move)
            excess.change(removed, added)
            self.path.append(move)
            if self.dive(g + 1, bound):
                return True
            self.path.pop()
            excess.change_back(removed, added)
            board.pop()
        return False


def shortest_between(
    start: Board,
    target: Board,
    shorter_than: int,
    budget: int,
    deadline: float = float("inf"),
) -> list[Move] | None:
    """A path of fewer than ``shorter_than`` moves (no deal) from ``start`` to exactly
    ``target``, within ``budget`` nodes and the deadline, or None."""
    return WindowSearch(start, target, budget, deadline).run(shorter_than)


# Window length (moves), the step between windows and the node budget of one window's
# search: about half a second for a 250-move Astrocyte line, which it shortens by 5-10 %.
WINDOW = 12
STEP = 6
WINDOW_NODES = 3_000


def shorten_windows(
    start: Board,
    moves: list[Move],
    deadline: float,
    *,
    window: int = WINDOW,
    step: int = STEP,
    budget: int = WINDOW_NODES,
) -> list[Move]:
    """``moves`` with every window of ``window`` moves (cut at deals) re-searched."""
    line = list(moves)
    board = start.copy(keep_history=False)
    i = 0
    while i < len(line) and now() < deadline:
        j = i
        target = board.copy(keep_history=False)
        while j < len(line) and j - i < window and line[j].src != DEAL_CODE:
            target.push(line[j])
            j += 1
        if j - i >= 2:
            path = shortest_between(board, target, j - i, budget, deadline)
            if path is not None:
                line[i:j] = path
                j = i + len(path)
        advance = max(1, min(step, j - i))
        if j < len(line) and line[j].src == DEAL_CODE and j - i <= step:
            advance = j - i + 1  # past the deal
        for move in line[i : i + advance]:
            board.push(move)
        i += advance
    return line
