"""A line written by card identity, so that it can be replayed after one of its moves is gone.

A move of the engine names piles ("t3-t7:2"); once an earlier move is dropped the same card
may lie elsewhere and the pile names no longer fit. Here every physical card gets an id
(two decks: equal codes, different ids) and a move is written as *which card* goes *where*:

- the group whose bottom card is card X, onto card Y (the top of some column),
- or into an empty column (the one it used, if empty again, else the first empty one),
- or into a free cell (the first free one);
- or a deal.

:class:`Tracked` is an engine :class:`Board` with the ids beside its cards; ``resolve``
turns an identity move back into an engine move for the current position, checked with
``Board.refusal`` (the engine's rules), or None when it no longer applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine import Board, Move
from games.engine.moves import CELL, DEAL, DEAL_CODE, FOUNDATION, TRANSFERS

ON_CARD = 0
TO_EMPTY = 1
TO_CELL = 2


@dataclass(frozen=True, slots=True)
class CardMove:
    """One action by card identity: ``card`` (the group's bottom card) to ``target``.

    ``kind`` is ON_CARD (``target`` is a card id), TO_EMPTY (``target`` is the column
    used), TO_CELL; a deal has ``card`` -1.
    """

    card: int
    kind: int = ON_CARD
    target: int = -1

    @property
    def is_deal(self) -> bool:
        return self.card < 0


DEAL_MOVE = CardMove(-1)


class Tracked:
    """A board and the id of every card on it, kept in step move by move."""

    __slots__ = ("board", "found", "piles", "stock")

    def __init__(self, board: Board) -> None:
        self.board = board.copy(keep_history=False)
        next_id = 0
        # piles[p] for p < FOUNDATION: a column (p < CELL) or a cell (a list of 0 or 1 id)
        self.piles: list[list[int]] = [[] for _ in range(FOUNDATION)]
        for p, column in enumerate(board._tab):
            self.piles[p] = list(range(next_id, next_id + len(column)))
            next_id += len(column)
        for c, card in enumerate(board._cells):
            if card:
                self.piles[CELL + c] = [next_id]
                next_id += 1
        self.found: list[list[int]] = []
        for foundation in board._found:
            self.found.append(list(range(next_id, next_id + len(foundation))))
            next_id += len(foundation)
        left = len(board._stock) - board._stock_pos
        self.stock = list(range(next_id, next_id + left))

    def copy(self) -> Tracked:
        other = Tracked(self.board)  # its ids are fresh: replaced by ours
        other.piles = [pile[:] for pile in self.piles]
        other.found = [pile[:] for pile in self.found]
        other.stock = self.stock
        return other

    def locate(self, card: int) -> tuple[int, int]:
        """(pile, index) of a card id, or (-1, -1) when it is home."""
        for p, pile in enumerate(self.piles):
            if card in pile:
                return p, pile.index(card)
        for k, pile in enumerate(self.found):
            if pile and pile[-1] == card:
                return FOUNDATION + k, len(pile) - 1
        return -1, -1

    def describe(self, move: Move) -> CardMove:
        """``move`` (legal here) by card identity."""
        if move.src == DEAL_CODE:
            return DEAL_MOVE
        if move.src < FOUNDATION:
            card = self.piles[move.src][-move.count]
        else:
            card = self.found[move.src - FOUNDATION][-1]
        if move.dst >= CELL:
            return CardMove(card, TO_CELL)
        column = self.piles[move.dst]
        if column:
            return CardMove(card, ON_CARD, column[-1])
        return CardMove(card, TO_EMPTY, move.dst)

    def resolve(self, step: CardMove) -> Move | None:
        """The engine move doing ``step`` here, if the rules allow it."""
        board = self.board
        if step.card < 0:
            return DEAL if board.refusal(DEAL) is None else None
        src, index = self.locate(step.card)
        if src < 0:
            return None
        count = len(self.piles[src]) - index if src < CELL else 1
        if src >= FOUNDATION and index != len(self.found[src - FOUNDATION]) - 1:
            return None
        if step.kind == TO_CELL:
            free = [CELL + c for c, card in enumerate(board._cells) if not card]
            if not free or count != 1 or CELL <= src < FOUNDATION:
                return None
            dst = free[0]
        elif step.kind == TO_EMPTY:
            empties = [j for j, column in enumerate(board._tab) if not column and j != src]
            if not empties:
                return None
            dst = step.target if step.target in empties else empties[0]
        else:
            dst, at = self.locate(step.target)
            if dst < 0 or dst >= CELL or at != len(self.piles[dst]) - 1 or dst == src:
                return None
        move = TRANSFERS[src][dst][count] if count <= 13 else None
        if move is None or board.refusal(move) is not None:
            return None
        return move

    def push(self, move: Move) -> None:
        """Play a legal engine move and move the ids with the cards."""
        board = self.board
        piles = self.piles
        if move.src == DEAL_CODE:
            columns = len(board._tab)
            dealt = board._stock_pos - (len(board._stock) - len(self.stock))
            board.push(move)
            for j in range(columns):
                piles[j].append(self.stock[dealt + j])
            self._collect_homes(range(columns))
            return
        if move.src < FOUNDATION:
            pile = piles[move.src]
            cards = pile[-move.count :]
            del pile[-move.count :]
        else:
            cards = [self.found[move.src - FOUNDATION].pop()]
        board.push(move)
        piles[move.dst].extend(cards)
        if move.dst < CELL:
            self._collect_homes((move.dst,))

    def _collect_homes(self, columns: range | tuple[int, ...]) -> None:
        """Runs the engine sent home: move their ids to the foundation that took them."""
        board = self.board
        for j in columns:
            pile = self.piles[j]
            while len(pile) > len(board._tab[j]):
                run = pile[-13:]
                del pile[-13:]
                k = next(
                    k
                    for k, foundation in enumerate(board._found)
                    if len(foundation) == 13 and not self.found[k]
                )
                self.found[k] = run


def describe_line(start: Board, moves: list[Move]) -> list[CardMove]:
    """``moves`` (a legal line from ``start``) by card identity."""
    tracked = Tracked(start)
    steps: list[CardMove] = []
    for move in moves:
        steps.append(tracked.describe(move))
        tracked.push(move)
    return steps


def play_steps(tracked: Tracked, steps: list[CardMove]) -> list[Move] | None:
    """Play ``steps`` on ``tracked`` (changed) until one fails (None) or the game is won:
    the engine moves played."""
    moves: list[Move] = []
    for step in steps:
        if tracked.board.is_won:
            break
        move = tracked.resolve(step)
        if move is None:
            return None
        tracked.push(move)
        moves.append(move)
    return moves
