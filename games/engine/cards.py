"""Cards as values. Internally a card is a small int: ``suit * 16 + rank`` (rank 1..13).

With that code, ``a + 1 == b`` exactly when ``b`` is one rank higher in the same suit,
which makes the one-suit descending run test a single comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"

RANK_MASK = 15
ACE = 1
KING = 13


def card_code(text: str) -> int:
    """``"TH"`` -> code. Raises ``ValueError`` for anything that is not a card."""
    if not isinstance(text, str) or len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r} (expected rank then suit, like 'TH')")
    return SUITS.index(text[1]) * 16 + RANKS.index(text[0]) + 1


def card_text(code: int) -> str:
    return RANKS[(code & RANK_MASK) - 1] + SUITS[code >> 4]


def rank_of(code: int) -> int:
    return code & RANK_MASK


# Lookup tables: faster than formatting every time a state is printed.
CODE_TO_TEXT: dict[int, str] = {
    s * 16 + r: RANKS[r - 1] + SUITS[s] for s in range(4) for r in range(1, 14)
}
TEXT_TO_CODE: dict[str, int] = {text: code for code, text in CODE_TO_TEXT.items()}


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. ``Card.parse("TH")``; ``str(card) == "TH"``."""

    rank: int  # 1 (Ace) .. 13 (King)
    suit: str  # one of "SHDC"

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13 or self.suit not in SUITS or len(self.suit) != 1:
            raise ValueError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        return cls.from_code(card_code(text))

    @classmethod
    def from_code(cls, code: int) -> Card:
        return cls(code & RANK_MASK, SUITS[code >> 4])

    @property
    def code(self) -> int:
        return SUITS.index(self.suit) * 16 + self.rank

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"
