"""Proofs of loss: a depth-first search that visits every position reachable from the start,
up to a node budget, with no pruning that could drop a win (docs/solver.md, "Proofs of loss").

The search is plain reachability: a position is won when some sequence of legal actions
reaches a won position, and a depth-first search that never expands a position twice still
reaches every reachable position. It expands each *class* of positions once, where a class
is :func:`encoding.canonical_key`'s: positions that are the same game up to relabelling
piles, so one is won exactly when the other is (the rules below). Exhausting it with no
win found proves the start lost; the count of classes expanded is the proof's size.

Rules (:data:`PROOF_RULES`, each argued in docs/solver.md):

* ``transpositions``: a class already expanded is not expanded again (this also drops every
  move that only undoes the one before it: it leads back to a position already seen);
* ``cells as a set``: cells are interchangeable (any card goes to any empty cell, any cell's
  card may go wherever a card may);
* ``foundations as a multiset``: which foundation holds a run does not matter (Astrocyte:
  their contents; Spider, where nothing comes back: only how many runs are home);
* ``columns as a multiset once the stock is empty``: with no deal left nothing tells the
  columns apart (while the stock lasts, each column gets its own card of each deal, so
  there the columns keep their order);
* ``runs home at once``: a completed run goes home as part of the action that completed it,
  by the rules (docs/rules.md, "Foundations"), so the search never has that choice;
* ``lost components``: a class proven lost (by this search or an earlier one of the same
  deal) is not searched again; a finished strongly connected component with no win in it,
  all of whose ways out lead to lost classes, is lost.

Nothing else is cut: moves back from a foundation, moves into a second empty column (while
the stock lasts) and deals are all tried. The budget is in positions (never seconds), so a
position gets the same answer on any machine. Move order only decides how soon a win is
found: moves that turn a card up or build in suit first, deals and cards back from a
foundation last.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from games.engine import Board, Move
from games.engine.moves import CELL, DEAL_CODE, FOUNDATION

from .clock import offer_lock
from .encoding import Chunk, canonical_key, column_chunk, column_chunks
from .outcome import Exhaustion

PROOF_RULES = (
    "transpositions",
    "cells as a set",
    "foundations as a multiset",
    "columns as a multiset once the stock is empty",
    "runs home at once",
    "lost components",
)


M = TypeVar("M")


def position_class(board: Board) -> bytes:
    """The class of a position: equal for positions that are won or lost together."""
    return canonical_key(board, column_chunks(board))


def exhaust(start: Board, max_nodes: int, lost: set[bytes] | None = None) -> Exhaustion[Move]:
    """Search every class of positions reachable from ``start`` (left alone), at most
    ``max_nodes`` of them; the line found wins from ``start`` when the start is winnable.

    ``lost``: classes of this deal already proven lost, not searched again; the classes this
    search proves lost are added to it, even when its budget runs out first (see
    :func:`search_graph`). Only ever share one set among positions of one deal: a class
    does not name its stock.
    """
    board = start.copy(keep_history=False)
    if board.is_won:
        return Exhaustion([], False, 1)
    return search_graph(PositionGraph(board), max_nodes, set() if lost is None else lost)


class Graph(Protocol[M]):
    """What :func:`search_graph` walks: a current node, moved along edges and back."""

    def key(self) -> bytes:
        """The current node's class."""

    def moves(self) -> list[M]:
        """The current node's edges, the one to try first last."""

    def enter(self, move: M) -> bool:
        """Follow ``move``; True when the node reached is won."""

    def leave(self) -> None:
        """Back along the last edge followed (and not yet left)."""

    def expanded(self) -> None:
        """The node just entered is to be expanded (told before its ``moves``)."""

    def finished(self) -> None:
        """The node expanded last is done with (told before the ``leave`` back from it)."""


def search_graph(graph: Graph[M], max_nodes: int, lost: set[bytes]) -> Exhaustion[M]:
    """Depth first from the graph's current node (not won), each class expanded once, at
    most ``max_nodes`` of them: the moves to a won node, or none (``exhausted`` when every
    reachable class was expanded).

    Every strongly connected component of classes the search finished (Tarjan's algorithm)
    is added to ``lost``, even when the budget runs out later: no member of it is won, and
    every edge out of it leads to a class already in ``lost`` (docs/solver.md, "Proofs of
    loss", rule 6). A class already in ``lost`` is not entered again.
    """
    root = graph.key()
    if root in lost:
        return Exhaustion(None, True, 0)
    order = {root: 0}  # a class's number in the order of expansion (Tarjan's index)
    on_stack = {root}  # classes expanded whose component is not finished
    stack = [root]  # those classes, in the order of expansion
    nodes = 1
    line: list[M] = []
    pending = [graph.moves()]
    path_keys = [root]
    low = [0]  # the lowest number reachable from each class on the path (Tarjan's lowlink)
    enter, leave, key_of = graph.enter, graph.leave, graph.key  # (bound once: the hot loop)
    while pending:
        moves = pending[-1]
        if not moves:
            pending.pop()
            key = path_keys.pop()
            reach = low.pop()
            if reach == order[key]:  # a component finished, with no win: lost
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    lost.add(member)
                    if member == key:
                        break
            if low:
                low[-1] = min(low[-1], reach)
                graph.finished()
                line.pop()
                leave()
            continue
        move = moves.pop()
        if enter(move):
            line.append(move)
            return Exhaustion(line, False, nodes)
        key = key_of()
        if key in on_stack:
            number = order[key]
            if number < low[-1]:
                low[-1] = number
            leave()
            continue
        if key in lost:
            leave()  # a finished component of this search, or of an earlier one
            continue
        if nodes >= max_nodes:
            return Exhaustion(None, False, nodes)
        order[key] = nodes
        on_stack.add(key)
        stack.append(key)
        nodes += 1
        line.append(move)
        graph.expanded()
        offer_lock()  # compiled, the search holds the interpreter lock otherwise (clock.py)
        pending.append(graph.moves())
        path_keys.append(key)
        low.append(nodes - 1)
    return Exhaustion(None, True, nodes)


class PositionGraph:
    """The game as a :class:`Graph`: a board, its classes by :func:`canonical_key`, the
    column chunks of the expanded positions along the line kept to key a child cheaply."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.path_chunks = [column_chunks(board)]
        self.chunks = self.path_chunks[0]

    def key(self) -> bytes:
        return canonical_key(self.board, self.chunks)

    def moves(self) -> list[Move]:
        return _ordered(self.board)

    def enter(self, move: Move) -> bool:
        board = self.board
        board.push(move)
        if board.is_won:
            return True
        self.chunks = _child_chunks(board, move, self.path_chunks[-1])
        return False

    def leave(self) -> None:
        self.board.pop()

    def expanded(self) -> None:
        self.path_chunks.append(self.chunks)

    def finished(self) -> None:
        self.path_chunks.pop()


def _child_chunks(board: Board, move: Move, parent: list[Chunk]) -> list[Chunk]:
    """The column chunks after ``move`` from the parent's: a deal changes every column, a
    transfer only its source and destination columns (a card turned up and runs sent home
    are in those two)."""
    if move.src == DEAL_CODE:
        return column_chunks(board)
    chunks = parent[:]
    for column in (move.src, move.dst):
        if column < CELL:
            chunks[column] = column_chunk(board._tab[column], board._down[column])
    return chunks


def _ordered(board: Board) -> list[Move]:
    """The legal moves, the one to try first last (the caller pops from the end)."""
    tab = board._tab
    down = board._down
    runs = board._run

    def rank(move: Move) -> int:
        src = move.src
        if src == DEAL_CODE or src >= FOUNDATION:
            return 0  # deals and cards back from a foundation last
        score = 1
        dst = move.dst
        if src < CELL:
            if move.count == len(tab[src]) - down[src] and down[src]:
                score += 4  # turns a card up
            elif move.count < runs[src]:
                score -= 1  # breaks a run
        if dst < CELL and tab[dst]:
            top = tab[dst][-1]
            card = tab[src][-move.count] if src < CELL else 0
            if card and card + 1 == top:
                score += 2  # builds in suit
        return score

    moves = board.legal_moves()
    moves.sort(key=rank)
    return moves


__all__ = [
    "PROOF_RULES",
    "Exhaustion",
    "Graph",
    "PositionGraph",
    "exhaust",
    "position_class",
    "search_graph",
]
