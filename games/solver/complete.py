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
  by the rules (docs/rules.md, "Foundations"), so the search never has that choice.

Nothing else is cut: moves back from a foundation, moves into a second empty column (while
the stock lasts) and deals are all tried. The budget is in positions (never seconds), so a
position gets the same answer on any machine. Move order only decides how soon a win is
found: moves that turn a card up or build in suit first, deals and cards back from a
foundation last.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine import Board, Move
from games.engine.moves import CELL, DEAL_CODE, FOUNDATION

from .encoding import Chunk, canonical_key, column_chunk, column_chunks

PROOF_RULES = (
    "transpositions",
    "cells as a set",
    "foundations as a multiset",
    "columns as a multiset once the stock is empty",
    "runs home at once",
)


@dataclass(frozen=True, slots=True)
class Exhaustion:
    """What :func:`exhaust` found: a winning line, a proof of loss (``exhausted``), or
    neither (the budget ran out). ``nodes``: position classes expanded, the start included."""

    moves: list[Move] | None
    exhausted: bool
    nodes: int

    @property
    def won(self) -> bool:
        return self.moves is not None


def position_class(board: Board) -> bytes:
    """The class of a position: equal for positions that are won or lost together."""
    return canonical_key(board, column_chunks(board))


def exhaust(start: Board, max_nodes: int) -> Exhaustion:
    """Search every class of positions reachable from ``start`` (left alone), at most
    ``max_nodes`` of them; the line found wins from ``start`` when the start is winnable."""
    board = start.copy(keep_history=False)
    if board.is_won:
        return Exhaustion([], False, 1)
    root_chunks = column_chunks(board)
    seen = {canonical_key(board, root_chunks)}
    nodes = 1
    line: list[Move] = []
    pending: list[list[Move]] = [_ordered(board)]
    path_chunks = [root_chunks]  # each expanded position's column chunks, along the line
    while pending:
        moves = pending[-1]
        if not moves:
            pending.pop()
            path_chunks.pop()
            if line:
                line.pop()
                board.pop()
            continue
        move = moves.pop()
        board.push(move)
        if board.is_won:
            line.append(move)
            return Exhaustion(line, False, nodes)
        chunks = _child_chunks(board, move, path_chunks[-1])
        key = canonical_key(board, chunks)
        if key in seen:
            board.pop()
            continue
        if nodes >= max_nodes:
            return Exhaustion(None, False, nodes)
        seen.add(key)
        nodes += 1
        line.append(move)
        pending.append(_ordered(board))
        path_chunks.append(chunks)
    return Exhaustion(None, True, nodes)


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


__all__ = ["PROOF_RULES", "Exhaustion", "exhaust", "position_class"]
