"""The position and its move stack: the one place where the rules decide what is possible.

Two paths, as in python-chess: :meth:`Board.push` applies a move that is known to be legal
(the solver, replaying moves it generated itself), :meth:`Board.push_text` parses and checks
anything that comes from outside. :meth:`Board.pop` undoes exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .cards import ACE, CODE_TO_TEXT, KING, RANK_MASK
from .deal import check_seed, deal_layout
from .errors import IllegalMoveError
from .moves import CELL, DEAL, DEAL_CODE, FOUNDATION, TRANSFERS, UNDO, UNDO_CODE, Move, pile_name
from .variants import Variant, get_variant

RUN = KING  # cards in a complete run
ALL_HOME = 8 * RUN

# An undo record is a tuple; its first item is the move.
#   transfer: (move, src_down, src_run, dst_down, dst_run, homes)
#   deal:     (DEAL, downs_before, runs_before, homes)
# where homes is None or a list of (column, foundation) in the order the runs went home.
_Record = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """What one checked action did, beyond the move itself: the cards it turned face up,
    as (column index, card code) in the order they turned, and the complete runs it sent
    to the foundations (an undo turns nothing up and sends nothing home)."""

    move: Move
    revealed: tuple[tuple[int, int], ...] = ()
    runs_home: int = 0

    def revealed_texts(self) -> list[dict[str, str]]:
        """``revealed`` as the API says it: [{"pile": "t3", "card": "KH"}, …]."""
        return [
            {"pile": f"t{column + 1}", "card": CODE_TO_TEXT[card]} for column, card in self.revealed
        ]


def run_length(column: list[int], face_down: int) -> int:
    """Length of the face-up, one-suit, descending run at the top of a non-empty column."""
    position = len(column) - 1
    length = 1
    while position > face_down and column[position] + 1 == column[position - 1]:
        length += 1
        position -= 1
    return length


class Board:
    """A position of one variant, with the stack of actions that led to it."""

    __slots__ = (
        "_cells",
        "_down",
        "_found",
        "_home",
        "_run",
        "_stack",
        "_stock",
        "_stock_pos",
        "_tab",
        "variant",
    )

    def __init__(
        self,
        variant: Variant,
        tableau: list[list[int]],
        face_down: list[int],
        cells: list[int],
        foundations: list[list[int]],
        stock: list[int],
        stock_position: int = 0,
    ) -> None:
        """A position from card codes, with no history: :meth:`deal` or
        ``state.board_from_state`` are the usual ways in.

        ``stock`` is the whole stock in dealing order and ``stock_position`` how many of its
        cards have been dealt already (a multiple of the columns): the solver's decoder
        keeps the stock whole and shares it between positions.
        """
        self.variant = variant
        self._tab = tableau
        self._down = face_down
        self._cells = cells
        self._found = foundations
        self._stock = stock
        self._stock_pos = stock_position
        self._home = sum(len(f) for f in foundations)
        self._stack: list[_Record] = []
        self._run = [
            run_length(col, down) if col else 0
            for col, down in zip(tableau, face_down, strict=True)
        ]

    @classmethod
    def deal(cls, variant: Variant | str, seed: object) -> Board:
        """The starting position of ``(variant, seed)`` (docs/rules.md, "Dealing from a seed");
        ``ValueError`` for a seed that is not an integer in range."""
        if isinstance(variant, str):
            variant = get_variant(variant)
        columns, stock = deal_layout(variant, check_seed(seed))
        return cls(
            variant,
            columns,
            [len(col) - 1 for col in columns],
            [0] * variant.cells,
            [[] for _ in range(variant.foundations)],
            stock,
        )

    # -- reading the position ------------------------------------------------------------

    @property
    def is_won(self) -> bool:
        return self._home == ALL_HOME

    @property
    def deals_left(self) -> int:
        return (len(self._stock) - self._stock_pos) // self.variant.columns

    @property
    def complete_foundations(self) -> int:
        """Foundations that hold all 13 cards of their run."""
        return sum(1 for f in self._found if len(f) == RUN)

    @property
    def move_stack(self) -> list[Move]:
        """The actions in force (undone ones are gone), oldest first."""
        return [record[0] for record in self._stack]

    def __len__(self) -> int:
        return len(self._stack)

    def is_stuck(self) -> bool:
        """docs/rules.md's "Stuck": the stock is empty and no move other than undo exists."""
        return not self.is_won and self._stock_pos >= len(self._stock) and not self.legal_moves()

    def position_key(self) -> tuple[Any, ...]:
        """Everything that decides the future of the game, hashable; equal positions, equal keys."""
        return (
            self.variant.id,
            tuple(tuple(col) for col in self._tab),
            tuple(self._down),
            tuple(self._cells),
            tuple(tuple(f) for f in self._found),
            tuple(self._stock[self._stock_pos :]),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.position_key() == other.position_key()

    def __hash__(self) -> int:
        return hash(self.position_key())

    def copy(self, *, keep_history: bool = True) -> Board:
        """An independent board in the same position; without its history (nothing to
        undo) when ``keep_history`` is false, as a search from this position wants."""
        board = Board(
            self.variant,
            [col[:] for col in self._tab],
            self._down[:],
            self._cells[:],
            [f[:] for f in self._found],
            self._stock,
            self._stock_pos,
        )
        if keep_history:
            board._stack = self._stack[:]
        return board

    def __repr__(self) -> str:
        return f"<Board {json.dumps(self.state())}>"

    def state(self) -> dict[str, Any]:
        """docs/rules.md's State JSON, whole (face-down and stock cards shown): for the server
        and the solver, never for a player before the deal is public."""
        text = CODE_TO_TEXT
        return {
            "variant": self.variant.id,
            "tableau": [[text[c] for c in col] for col in self._tab],
            "face_down": list(self._down),
            "cells": [text[c] if c else None for c in self._cells],
            "foundations": [[text[c] for c in f] for f in self._found],
            "stock": [text[c] for c in self._stock[self._stock_pos :]],
            "won": self.is_won,
        }

    def view(self) -> dict[str, Any]:
        """What the player may see: the State JSON with face-down and stock cards null."""
        text = CODE_TO_TEXT
        return {
            "variant": self.variant.id,
            "tableau": [
                [None] * down + [text[c] for c in col[down:]]
                for col, down in zip(self._tab, self._down, strict=True)
            ],
            "face_down": list(self._down),
            "cells": [text[c] if c else None for c in self._cells],
            "foundations": [[text[c] for c in f] for f in self._found],
            "stock": [None] * (len(self._stock) - self._stock_pos),
            "won": self.is_won,
        }

    # -- what is possible ----------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal action except undo, in a fixed order."""
        if self._home == ALL_HOME:
            return []
        tab = self._tab
        # Columns by the rank of their top card: a card of rank r goes on targets[r + 1].
        targets: dict[int, list[int]] = {}
        empties: list[int] = []
        for j, col in enumerate(tab):
            if col:
                rank = col[-1] & RANK_MASK
                if rank in targets:
                    targets[rank].append(j)
                else:
                    targets[rank] = [j]
            else:
                empties.append(j)
        free_cells = [CELL + j for j, card in enumerate(self._cells) if not card]
        moves: list[Move] = []
        add = moves.append
        get = targets.get
        runs = self._run
        for i, col in enumerate(tab):
            if not col:
                continue
            from_i = TRANSFERS[i]
            top_rank = col[-1] & RANK_MASK
            for count in range(1, runs[i] + 1):
                # the group's bottom card has rank top_rank + count - 1
                for j in get(top_rank + count, ()):
                    add(from_i[j][count])
                for j in empties:
                    add(from_i[j][count])
            for c in free_cells:
                add(from_i[c][1])
        for c, card in enumerate(self._cells):
            if card:
                from_c = TRANSFERS[CELL + c]
                for j in get((card & RANK_MASK) + 1, ()):
                    add(from_c[j][1])
                for j in empties:
                    add(from_c[j][1])
        if self.variant.can_take_back:
            for k, foundation in enumerate(self._found):
                if foundation:
                    from_f = TRANSFERS[FOUNDATION + k]
                    for j in get((foundation[-1] & RANK_MASK) + 1, ()):
                        add(from_f[j][1])
                    for j in empties:
                        add(from_f[j][1])
                    for c in free_cells:
                        add(from_f[c][1])
        if self._stock_pos < len(self._stock) and not empties:
            add(DEAL)
        return moves

    def legal_actions(self) -> list[str]:
        """The texts of every legal action, undo included when there is one to undo."""
        actions = [str(move) for move in self.legal_moves()]
        if self._stack and self._home != ALL_HOME:
            actions.append("undo")
        return actions

    def refusal(self, move: Move) -> str | None:
        """Why the rules refuse ``move`` here, in words a player can read; None if legal.

        ``move`` must name piles this variant has (``Move.parse(text, variant)`` ensures it).
        """
        if self._home == ALL_HOME:
            return "the game is already won: no action follows the win"
        src = move.src
        if src == DEAL_CODE:
            if self._stock_pos >= len(self._stock):
                return f"the stock is empty: all {self.variant.stock_deals} deals have been made"
            for j, col in enumerate(self._tab):
                if not col:
                    return f"no deal while a column is empty: fill t{j + 1} first"
            return None
        if src == UNDO_CODE:
            return None if self._stack else "nothing to undo"
        dst, count = move.dst, move.count
        if dst >= FOUNDATION:
            return (
                "no card is played to a foundation by hand: a complete King-to-Ace run "
                "of one suit goes there by itself"
            )
        if src >= FOUNDATION and not self.variant.can_take_back:
            return "in Spider a completed run stays on its foundation"
        if CELL <= src < FOUNDATION and dst >= CELL:
            return "a card in a cell may go only to the tableau, not to another cell"
        if src < CELL:
            col = self._tab[src]
            if not col:
                return f"{pile_name(src)} is empty"
            run = self._run[src]
            if count > run:
                return (
                    f"only the top {_cards(run)} of {pile_name(src)} "
                    f"{'forms' if run == 1 else 'form'} a face-up run of one suit going down "
                    f"by one rank, so {count} cards cannot move together"
                )
            card = col[-count]
        elif src < FOUNDATION:
            card = self._cells[src - CELL]
            if not card:
                return f"cell {pile_name(src)} is empty"
        else:
            foundation = self._found[src - FOUNDATION]
            if not foundation:
                return f"foundation {pile_name(src)} is empty"
            card = foundation[-1]
        what = CODE_TO_TEXT[card] if count == 1 else f"the group from {CODE_TO_TEXT[card]}"
        if dst < CELL:
            col = self._tab[dst]
            if col and (col[-1] & RANK_MASK) != (card & RANK_MASK) + 1:
                top = CODE_TO_TEXT[col[-1]]
                if col[-1] & RANK_MASK == ACE:
                    return f"{what} cannot go on {top} in {pile_name(dst)}: nothing goes on an Ace"
                return (
                    f"{what} cannot go on {top} in {pile_name(dst)}: "
                    "a card goes only on a card one rank higher"
                )
            return None
        if self._cells[dst - CELL]:
            return f"cell {pile_name(dst)} already holds {CODE_TO_TEXT[self._cells[dst - CELL]]}"
        return None

    def is_legal(self, move: Move) -> bool:
        return self.refusal(move) is None

    # -- changing the position -----------------------------------------------------------

    def push_text(self, text: Any) -> Move:
        """Parse, check and apply one action from outside (``undo`` undoes).

        Raises :class:`InvalidMoveError` or :class:`IllegalMoveError`; the board is unchanged then.
        """
        move = Move.parse(text, self.variant)
        reason = self.refusal(move)
        if reason is not None:
            raise IllegalMoveError(text, reason)
        if move.src == UNDO_CODE:
            self.pop()
        else:
            self.push(move)
        return move

    def play(self, text: Any) -> Played:
        """:meth:`push_text`, telling what the action turned face up and sent home.

        A flip shows as a column's face-down count going down; a deal shows every card it
        dealt, even one that a completed run took home at once. Costs a copy of the
        face-down counts (one small list) on top of the checked path.
        """
        down_before = self._down[:]
        dealt_from = self._stock_pos
        move = self.push_text(text)
        if move.src == UNDO_CODE:
            return Played(move)
        revealed: list[tuple[int, int]] = []
        if move.src == DEAL_CODE:
            revealed += enumerate(self._stock[dealt_from : dealt_from + len(self._tab)])
        for column, (cards, before, after) in enumerate(
            zip(self._tab, down_before, self._down, strict=True)
        ):
            revealed += ((column, card) for card in cards[after : min(before, len(cards))])
        homes = self._stack[-1][-1]  # the record's runs sent home, if any
        return Played(move, tuple(revealed), len(homes) if homes else 0)

    def push(self, move: Move) -> None:
        """Apply a legal move without checking it (the solver's fast path)."""
        src = move.src
        if src < 0:
            if src == DEAL_CODE:
                self._deal()
            else:
                self.pop()
            return
        dst = move.dst
        count = move.count
        tab = self._tab
        down = self._down
        runs = self._run
        src_down = src_run = dst_down = dst_run = -1
        if src < CELL:
            col = tab[src]
            src_down = down[src]
            src_run = runs[src]
            cards = col[-count:]
            del col[-count:]
            if count < src_run:
                runs[src] = src_run - count
            elif not col:
                runs[src] = 0
            elif src_down == len(col):
                down[src] = src_down - 1
                runs[src] = 1
            else:
                runs[src] = run_length(col, src_down)
        elif src < FOUNDATION:
            cards = [self._cells[src - CELL]]
            self._cells[src - CELL] = 0
        else:
            cards = [self._found[src - FOUNDATION].pop()]
            self._home -= 1
        homes = None
        if dst < CELL:
            col = tab[dst]
            dst_down = down[dst]
            dst_run = runs[dst]
            if col and cards[0] + 1 == col[-1]:
                runs[dst] = dst_run + count
            else:
                runs[dst] = count
            col += cards
            if runs[dst] >= RUN and col[-1] & RANK_MASK == ACE:
                homes = self._send_home(dst, [])
        else:
            self._cells[dst - CELL] = cards[0]
        self._stack.append((move, src_down, src_run, dst_down, dst_run, homes))

    def _deal(self) -> None:
        tab = self._tab
        runs = self._run
        record: _Record = (DEAL, self._down[:], runs[:], None)
        stock = self._stock
        position = self._stock_pos
        for i, col in enumerate(tab):
            card = stock[position + i]
            if col and card + 1 == col[-1]:
                runs[i] += 1
            else:
                runs[i] = 1
            col.append(card)
        self._stock_pos = position + len(tab)
        homes: list[tuple[int, int]] = []
        for i, col in enumerate(tab):
            if runs[i] >= RUN and col[-1] & RANK_MASK == ACE:
                self._send_home(i, homes)
        if homes:
            record = (DEAL, record[1], record[2], homes)
        self._stack.append(record)

    def _send_home(self, i: int, homes: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Move complete runs from the top of column i to the lowest empty foundations."""
        col = self._tab[i]
        while self._run[i] >= RUN and col[-1] & RANK_MASK == ACE:
            k = next(k for k, f in enumerate(self._found) if not f)
            self._found[k] = col[-RUN:]
            del col[-RUN:]
            self._home += RUN
            homes.append((i, k))
            down = self._down[i]
            if not col:
                self._run[i] = 0
                break
            if down == len(col):
                self._down[i] = down - 1
                self._run[i] = 1
            else:
                self._run[i] = run_length(col, down)
        return homes

    def pop(self) -> Move:
        """Undo the last action in force, whole; ``IndexError`` if there is none."""
        record = self._stack.pop()
        move: Move = record[0]
        homes = record[-1]
        tab = self._tab
        if homes:
            for i, k in reversed(homes):
                tab[i] += self._found[k]
                self._found[k] = []
                self._home -= RUN
        if move.src == DEAL_CODE:
            for col in tab:
                del col[-1]
            self._stock_pos -= len(tab)
            # copy into the live lists: a copied board may share this record
            self._down[:] = record[1]
            self._run[:] = record[2]
            return move
        src, dst, count = move.src, move.dst, move.count
        if dst < CELL:
            col = tab[dst]
            cards = col[-count:]
            del col[-count:]
            self._down[dst] = record[3]
            self._run[dst] = record[4]
        else:
            cards = [self._cells[dst - CELL]]
            self._cells[dst - CELL] = 0
        if src < CELL:
            tab[src] += cards
            self._down[src] = record[1]
            self._run[src] = record[2]
        elif src < FOUNDATION:
            self._cells[src - CELL] = cards[0]
        else:
            self._found[src - FOUNDATION].append(cards[0])
            self._home += 1
        return move

    def iter_columns(self) -> Iterator[tuple[list[int], int]]:
        """(column codes, face-down count) for each column; read-only use."""
        return zip(self._tab, self._down, strict=True)


def _cards(n: int) -> str:
    return "card" if n == 1 else f"{n} cards"


__all__ = ["ALL_HOME", "RUN", "UNDO", "Board", "Played", "run_length"]
