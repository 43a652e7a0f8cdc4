"""Greedy best-first search with a transposition table over canonical positions.

The open list is a heap of ``(penalty, -node id, encoded position)``: the lowest penalty
first and, among equals, the newest node, so that the search dives like a DFS along a
plateau but can still jump back to any earlier promising position (a pure DFS spends its
whole budget under one bad early choice). A node is only a parent index and the move that
made it, so the winning line is read back through the parents.

Pruning is of two kinds. *Safe*: of several empty cells only the first is a target (cells
are interchangeable and the key sorts them); once the stock is empty, of several empty
columns only the first is a target, and a whole column never moves into an empty one (both
give a position the key already knows). *Unsafe* (while the stock lasts, the column that
receives a card matters for the deals): the same two rules applied anyway. When an unsafe
prune has dropped a move, an exhausted search reports ``unknown``, never ``unsolvable``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from games.engine import Board, Move
from games.engine.board import ALL_HOME
from games.engine.cards import RANK_MASK
from games.engine.moves import CELL, DEAL, DEAL_CODE, FOUNDATION

from .clock import now, offer_lock
from .encoding import (
    Chunk,
    canonical_key,
    column_chunk,
    column_chunks,
    decode,
    encode,
    exact_foundations,
    exact_tail,
    foundations_key,
)
from .heuristic import SPIDER, ColumnPenalties, Weights, global_penalty
from .macros import Macro, macro_children
from .outcome import Status, StopReason

CHECK_EVERY = 32  # expansions between looks at the clock and the table size
# Rough bytes a node costs: a key in the set, the parent and move slots, and, while it is
# open, its heap entry with the encoded position. Calibrated against ru_maxrss.
SEEN_OVERHEAD = 110
OPEN_OVERHEAD = 140


@dataclass(frozen=True, slots=True)
class Progress:
    nodes: int
    seconds: float
    open_nodes: int
    best_home: int  # most cards home in a position seen (0 in the improve phase)
    # set in the improve phase: the best line's length so far (``nodes`` and ``seconds``
    # then count the phase's own)
    par: int | None = None


ProgressCallback = Callable[[Progress], None]


class ProgressReporter:
    """Calls ``progress`` once ``every`` more positions were generated (the searches call it
    at each of their periodic checks); ``seconds`` count from its creation."""

    __slots__ = ("began", "due", "every", "progress")

    def __init__(self, progress: ProgressCallback | None, every: int) -> None:
        self.progress = progress
        self.every = every
        self.due = every
        self.began = now()

    def __call__(self, nodes: int, open_nodes: int, best_home: int, par: int | None = None) -> None:
        if self.progress is not None and nodes >= self.due:
            self.due = nodes + self.every
            self.emit(nodes, open_nodes, best_home, par)

    def emit(self, nodes: int, open_nodes: int, best_home: int, par: int | None = None) -> None:
        """Report now (a relay of a nested search's own, already spaced, reports)."""
        if self.progress is not None:
            elapsed = now() - self.began
            self.progress(Progress(nodes, elapsed, open_nodes, best_home, par))


@dataclass(slots=True)
class SearchOutcome:
    status: Status
    moves: list[Move]
    nodes: int
    table_bytes: int
    reason: StopReason
    # widths of the beam searches by line length it ran to the end (``staged.PROVING_BEAM``):
    # the improve phase need not run them again
    beam_widths: tuple[int, ...] = ()


Step = Move | Macro  # what makes a child: one move or a compound one
Child = tuple[int, Step, bytes]  # penalty, the step that made it, encoded position


class Expander:
    """Generates the new children of a position and keeps the transposition table."""

    def __init__(
        self,
        start: Board,
        focused: bool,
        weights: Weights = SPIDER,
        macros: bool = False,
        fill_for_deal: bool = False,
    ) -> None:
        self.variant = start.variant
        # (focused) nothing left face down and a deal waiting for an empty column: splitting
        # a run into it is progress, and the empty column counts against (``children``)
        self.fill_for_deal = fill_for_deal
        self.macros = macros
        # deal children ranked without being played (the staged search plays the few it keeps)
        self.lazy_deal = False
        self.stock = start._stock
        self.focused = focused
        self.weights = weights
        self.penalties = ColumnPenalties(weights)
        self.pruned_unsafely = False
        self.nodes = 0
        self.best_home = start._home
        root, chunks = decode(self.variant, self.stock, self.root_data(start))
        self.seen: set[bytes] = {canonical_key(root, chunks)}
        self.per_seen = len(next(iter(self.seen))) + SEEN_OVERHEAD

    @staticmethod
    def root_data(start: Board) -> bytes:
        return encode(column_chunks(start), exact_tail(start))

    def children(self, data: bytes) -> tuple[list[Child], Step | None]:
        """The children not seen before, and a move that wins at once if there is one."""
        offer_lock()  # compiled, the search holds the interpreter lock otherwise (clock.py)
        board, chunks = decode(self.variant, self.stock, data)
        stock = self.stock
        seen = self.seen
        focused = self.focused
        tab = board._tab
        down = board._down
        stock_left = board._stock_pos < len(stock)
        first_empty = next((j for j, col in enumerate(tab) if not col), -1)
        first_free_cell = next((CELL + j for j, c in enumerate(board._cells) if not c), -1)
        wanted = _badly_placed(board) if focused else set()
        fill = self.fill_for_deal and focused and deal_waits_for_a_column(board)
        found: list[Child] = []
        home_before = board._home
        parent_key_found = foundations_key(board)
        parent_exact_found = exact_foundations(board)
        for move in board.legal_moves():
            src = move.src
            dst = move.dst
            if src == DEAL_CODE:
                if self.lazy_deal:
                    # rank the deal without playing it; see ``materialize_deal``
                    found.append((self._deal_penalty(board, chunks), move, data))
                    continue
            else:
                filling = fill and dst == first_empty
                if focused and not filling and not _useful(board, move, wanted):
                    self.pruned_unsafely = True
                    continue
                if dst >= CELL:
                    if dst != first_free_cell:
                        continue
                elif not tab[dst] and (
                    dst != first_empty or (src < CELL and move.count == len(tab[src]))
                ):
                    if stock_left:
                        self.pruned_unsafely = True
                    continue
            board.push(move)
            if src == DEAL_CODE:
                child_chunks = column_chunks(board)
            else:
                child_chunks = chunks[:]
                if src < CELL:
                    child_chunks[src] = column_chunk(tab[src], down[src])
                if dst < CELL:
                    child_chunks[dst] = column_chunk(tab[dst], down[dst])
            same_found = board._home == home_before and src < FOUNDATION
            key = canonical_key(board, child_chunks, parent_key_found if same_found else None)
            if key in seen:
                board.pop()
                continue
            seen.add(key)
            self.nodes += 1
            home = board._home
            if home == ALL_HOME:
                return found, move
            if home > self.best_home:
                self.best_home = home
            penalty = self._penalty(board, child_chunks, fill)
            tail = exact_tail(board, parent_exact_found if same_found else None)
            found.append((penalty, move, encode(child_chunks, tail)))
            board.pop()
        if self.macros:
            for played in macro_children(board):
                child_chunks = column_chunks(board)
                key = canonical_key(board, child_chunks)
                if key in seen:
                    continue
                seen.add(key)
                self.nodes += 1
                home = board._home
                macro = Macro(played)
                if home == ALL_HOME:
                    return found, macro
                if home > self.best_home:
                    self.best_home = home
                penalty = self._penalty(board, child_chunks, fill)
                found.append((penalty, macro, encode(child_chunks, exact_tail(board))))
        return found, None

    def _penalty(self, board: Board, chunks: list[Chunk], fill: bool) -> int:
        """A child's penalty: its columns' (``chunks``) and the rest of the position's.
        ``fill``: the parent's deal waits for an empty column (``deal_waits_for_a_column``),
        so while the stock lasts an empty column counts against the child, not for it."""
        cells = board._cells
        penalty = sum(map(self.penalties, chunks)) + global_penalty(
            len(cells) - cells.count(0),
            board._home,
            len(self.stock) - board._stock_pos,
            self.weights,
        )
        if fill and board._stock_pos < len(self.stock):
            penalty -= 2 * self.weights.empty * board._tab.count([])
        return penalty

    def _deal_penalty(self, board: Board, chunks: list[Chunk]) -> int:
        """The penalty after the next deal, from the columns' penalties and the dealt cards.

        Exact unless the deal completes a run (it then goes home; rare, and only the
        ranking of the deal child is off: the child itself is played for real later).
        """
        weights = self.weights
        penalties = self.penalties
        stock = self.stock
        position = board._stock_pos
        total = global_penalty(
            len(board._cells) - board._cells.count(0),
            board._home,
            len(stock) - position - len(chunks),
            weights,
        )
        over = weights.over_down
        over_each = weights.over_each_down
        brk = weights.brk
        off_suit = weights.off_suit
        for i, chunk in enumerate(chunks):
            total += penalties(chunk)
            face_down = chunk[1]
            if face_down:
                total += over + over_each * face_down
            card = stock[position + i]
            below = chunk[-1]
            if card + 1 != below:
                total += off_suit if (card & RANK_MASK) + 1 == (below & RANK_MASK) else brk
        return total

    def materialize_deal(self, parent: bytes) -> bytes:
        """The position after the deal from ``parent`` (a lazily ranked deal child)."""
        board, _ = decode(self.variant, self.stock, parent)
        board.push(DEAL)
        return encode(column_chunks(board), exact_tail(board))


class Lines:
    """The tree of nodes as parent links, to read a winning line back."""

    def __init__(self) -> None:
        self.parents: list[int] = [-1]
        self.made_by: list[Step | None] = [None]

    def add(self, parent: int, move: Step) -> int:
        self.parents.append(parent)
        self.made_by.append(move)
        return len(self.parents) - 1

    def line_to(self, node: int, last: Step | None = None) -> list[Move]:
        steps: list[Step] = [] if last is None else [last]
        while node > 0:
            step = self.made_by[node]
            assert step is not None
            steps.append(step)
            node = self.parents[node]
        steps.reverse()
        line: list[Move] = []
        for step in steps:
            if isinstance(step, Macro):
                line.extend(step.moves)
            else:
                line.append(step)
        return line

    def __len__(self) -> int:
        return len(self.parents)


def best_first(
    start: Board,
    *,
    deadline: float,
    max_nodes: int | None,
    memory_cap_bytes: int,
    progress: ProgressCallback | None = None,
    progress_every: int = 50_000,
    focused: bool = True,
    weights: Weights = SPIDER,
    expander: Expander | None = None,
    macros: bool = False,
    move_cost: int = 0,
    longest: int = -1,
    fill_for_deal: bool = False,
) -> SearchOutcome:
    """Search from ``start`` (not modified) until a win, exhaustion or a limit.

    ``move_cost`` > 0 adds that much per move of the line to a position's rank (shorter
    lines first); ``longest`` >= 0 drops every line of that many moves or more;
    ``fill_for_deal``: see ``Expander``.
    """
    if start.is_won:
        return SearchOutcome(Status.SOLVED, [], 0, 0, StopReason.ALREADY_WON)
    if expander is None:
        expander = Expander(start, focused, weights, macros, fill_for_deal)
    lines = Lines()
    root_data = expander.root_data(start)
    open_list: list[tuple[int, int, bytes]] = [(0, 0, root_data)]
    per_open = len(root_data) + OPEN_OVERHEAD
    depths = [0]
    bounded = longest >= 0
    trimmed = False
    expansions = 0
    report = ProgressReporter(progress, progress_every)
    heappush = heapq.heappush
    heappop = heapq.heappop

    def table_bytes() -> int:
        return len(expander.seen) * expander.per_seen + len(open_list) * per_open + 16 * len(lines)

    while open_list:
        expansions += 1
        if expansions % CHECK_EVERY == 0:
            if now() >= deadline:
                return SearchOutcome(
                    Status.UNKNOWN, [], expander.nodes, table_bytes(), StopReason.TIME_LIMIT
                )
            if table_bytes() > memory_cap_bytes:
                if len(open_list) * per_open * 2 < memory_cap_bytes:
                    return SearchOutcome(
                        Status.UNKNOWN,
                        [],
                        expander.nodes,
                        table_bytes(),
                        StopReason.MEMORY_LIMIT,
                    )
                # keep the better half of the frontier; the search is no longer exhaustive
                open_list = heapq.nsmallest(len(open_list) // 2, open_list)
                trimmed = True
        _, negative_id, data = heappop(open_list)
        parent = -negative_id
        children, winner = expander.children(data)
        if winner is not None:
            line = lines.line_to(parent, winner)
            if not bounded or len(line) < longest:
                return SearchOutcome(
                    Status.SOLVED, line, expander.nodes, table_bytes(), StopReason.WON
                )
        for penalty, move, child in children:
            depth = depths[parent] + (len(move.moves) if isinstance(move, Macro) else 1)
            if bounded and depth >= longest:
                trimmed = True
                continue
            depths.append(depth)
            heappush(open_list, (penalty + move_cost * depth, -lines.add(parent, move), child))
        if max_nodes is not None and expander.nodes >= max_nodes:
            return SearchOutcome(
                Status.UNKNOWN, [], expander.nodes, table_bytes(), StopReason.NODE_LIMIT
            )
        if progress is not None:
            report(expander.nodes, len(open_list), expander.best_home)
    if expander.pruned_unsafely or trimmed:
        reason = StopReason.PRUNED_EXHAUSTED
        return SearchOutcome(Status.UNKNOWN, [], expander.nodes, table_bytes(), reason)
    return SearchOutcome(Status.UNSOLVABLE, [], expander.nodes, table_bytes(), StopReason.EXHAUSTED)


def deal_waits_for_a_column(board: Board) -> bool:
    """Nothing is face down and the stock holds a deal that an empty column holds up."""
    stock_left = board._stock_pos < len(board._stock)
    return stock_left and not any(board._down) and not all(board._tab)


def _badly_placed(board: Board) -> set[int]:
    """Cards that want a better place: cell cards, and movable groups not on a card that takes them.

    A move that frees the card one rank above one of these (same suit) may be worth making even
    when it looks like a sideways step (the "swap" that lets another card join its suit).
    """
    wanted = {card for card in board._cells if card}
    for col, down, run in zip(board._tab, board._down, board._run, strict=True):
        if not col:
            continue
        bottom = len(col) - run
        if bottom > down:
            wanted.add(col[bottom])
    return wanted


def _useful(board: Board, move: Move, wanted: set[int]) -> bool:
    """Whether a transfer makes progress or prepares some (the focused search's filter).

    Progress: it turns a card over, empties a column, puts cards on a better place (same suit
    beats another suit beats a blocked card), or frees a card that a badly placed card of its
    suit is waiting for. A take-back from a foundation never counts.
    """
    src = move.src
    dst = move.dst
    if src >= CELL:
        return src < FOUNDATION  # from a cell: always; from a foundation: never
    col = board._tab[src]
    count = move.count
    below_index = len(col) - count - 1
    if below_index < 0:
        # the column empties: progress unless the cards only change column
        return dst >= CELL or bool(board._tab[dst])
    if below_index < board._down[src]:
        return True
    group = col[-count]
    below = col[below_index]
    if group + 1 == below:
        here = 4
    elif (group & RANK_MASK) + 1 == (below & RANK_MASK):
        here = 2
    else:
        here = 0
    if dst >= CELL:
        return True  # digging with the cells takes plans longer than this filter can see
    else:
        target = board._tab[dst]
        if not target:
            there = 1
        elif group + 1 == target[-1]:
            there = 4
        else:
            there = 2
    if there > here:
        return True
    if there == 4 and count + board._run[dst] > board._run[src]:
        return True  # a longer run of one suit (as a run completed on its King)
    return here < 4 and (below - 1) in wanted and (dst < CELL or here == 0)
