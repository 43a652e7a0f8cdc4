"""Actions and their notation (docs/rules.md, "Writing actions").

Piles are small ints so that the board can index lists with them directly:
tableau column i (0-based) is ``i``, cell j is ``CELL + j``, foundation k is ``FOUNDATION + k``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import InvalidMoveError
from .variants import Variant

MAX_COLUMNS = 10
MAX_CELLS = 4
MAX_FOUNDATIONS = 8
CELL = MAX_COLUMNS
FOUNDATION = CELL + MAX_CELLS
PILES = FOUNDATION + MAX_FOUNDATIONS
MAX_GROUP = 13  # a one-suit descending run is never longer

DEAL_CODE = -1
UNDO_CODE = -2

_PREFIX_BASE = {"t": 0, "c": CELL, "f": FOUNDATION}
_TRANSFER = re.compile(r"([tcf])([1-9][0-9]*)-([tcf])([1-9][0-9]*)(?::([1-9][0-9]*))?")


def pile_name(pile: int) -> str:
    if pile < CELL:
        return f"t{pile + 1}"
    if pile < FOUNDATION:
        return f"c{pile - CELL + 1}"
    return f"f{pile - FOUNDATION + 1}"


@dataclass(frozen=True, slots=True)
class Move:
    """One action: a transfer ``src -> dst`` of ``count`` cards, a stock deal, or an undo.

    Use :meth:`Move.parse` for text from outside; ``str(move)`` is the canonical text.
    """

    src: int
    dst: int = DEAL_CODE
    count: int = 1

    @classmethod
    def parse(cls, text: Any, variant: Variant | None = None) -> Move:
        """The action written ``text``; :class:`InvalidMoveError` if it is not one.

        Without a variant, any pile some variant has is accepted.
        """
        if variant is not None:
            try:
                return _PARSED[variant.id][text]
            except (KeyError, TypeError):
                pass
        move = _parse_uncached(text, variant)
        if variant is not None and move.count <= MAX_GROUP:
            _PARSED[variant.id][text] = move
        return move

    @property
    def is_deal(self) -> bool:
        return self.src == DEAL_CODE

    @property
    def is_undo(self) -> bool:
        return self.src == UNDO_CODE

    @property
    def source(self) -> str | None:
        return pile_name(self.src) if self.src >= 0 else None

    @property
    def destination(self) -> str | None:
        return pile_name(self.dst) if self.src >= 0 else None

    def __str__(self) -> str:
        if self.src == DEAL_CODE:
            return "deal"
        if self.src == UNDO_CODE:
            return "undo"
        text = f"{pile_name(self.src)}-{pile_name(self.dst)}"
        return f"{text}:{self.count}" if self.count > 1 else text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


DEAL = Move(DEAL_CODE, DEAL_CODE, 0)
UNDO = Move(UNDO_CODE, UNDO_CODE, 0)

# Interned transfers: TRANSFERS[src][dst][count] (count 0 unused). legal_moves() hands these out
# instead of building new objects, which keeps move generation fast.
TRANSFERS: list[list[list[Move]]] = [
    [
        [Move(src, dst, n) for n in range(MAX_GROUP + 1)]
        if src < CELL and dst < CELL
        else [Move(src, dst, 1)] * 2
        for dst in range(PILES)
    ]
    for src in range(PILES)
]

_PARSED: dict[str, dict[Any, Move]] = {
    name: {"deal": DEAL, "undo": UNDO} for name in ("astrocyte", "spider1", "spider2", "spider4")
}


def _pile(prefix: str, number: str, variant: Variant | None, text: str) -> int:
    index = int(number) - 1
    if prefix == "t":
        limit = variant.columns if variant else MAX_COLUMNS
        what = "columns"
    elif prefix == "c":
        limit = variant.cells if variant else MAX_CELLS
        what = "cells"
    else:
        limit = variant.foundations if variant else MAX_FOUNDATIONS
        what = "foundations"
    if index >= limit:
        game = f"{variant.id} has" if variant else "no variant has"
        has = f"{limit} {what}" if limit else f"no {what}"
        raise InvalidMoveError(text, f"there is no pile {prefix}{number}: {game} {has}")
    return _PREFIX_BASE[prefix] + index


def _parse_uncached(text: Any, variant: Variant | None) -> Move:
    if not isinstance(text, str):
        raise InvalidMoveError(
            text, f"an action is a string of the notation, not {type(text).__name__}"
        )
    if text == "deal":
        return DEAL
    if text == "undo":
        return UNDO
    match = _TRANSFER.fullmatch(text)
    if match is None:
        raise InvalidMoveError(text, _why_not_notation(text))
    src_prefix, src_number, dst_prefix, dst_number, count_text = match.groups()
    src = _pile(src_prefix, src_number, variant, text)
    dst = _pile(dst_prefix, dst_number, variant, text)
    if src == dst:
        raise InvalidMoveError(text, "the source and the destination are the same pile")
    if count_text is None:
        return TRANSFERS[src][dst][1]
    count = int(count_text)
    if count < 2:
        raise InvalidMoveError(text, "write ':n' only for n of 2 or more (one card has no ':n')")
    if src_prefix != "t" or dst_prefix != "t":
        raise InvalidMoveError(text, "a group (':n') moves only from a column to a column")
    if count > MAX_GROUP:
        # Well-formed, and refused by the board as larger than any run; not interned.
        return Move(src, dst, count)
    return TRANSFERS[src][dst][count]


def _why_not_notation(text: str) -> str:
    if not text:
        return "an empty action"
    if text != text.lower():
        return "actions are written in lower case"
    if text != text.strip() or " " in text:
        return "an action has no spaces"
    if re.fullmatch(r"[tcf][0-9]+-[tcf][0-9]+(:[0-9]+)?", text):
        return "pile numbers and counts start at 1 and have no leading zeros"
    return "not an action: expected SRC-DST, SRC-DST:n, 'deal' or 'undo' (like 't3-t5:4')"
