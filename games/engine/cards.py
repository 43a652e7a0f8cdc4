"""Cards as values. Internally a card is a small int: ``suit * 16 + rank`` (rank 1..13).

With that code, ``a + 1 == b`` exactly when ``b`` is one rank higher in the same suit,
which makes the one-suit descending run test a single comparison.
"""

from __future__ import annotations

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


# Lookup tables: faster than formatting every time a state is printed.
CODE_TO_TEXT: dict[int, str] = {
    s * 16 + r: RANKS[r - 1] + SUITS[s] for s in range(4) for r in range(1, 14)
}
TEXT_TO_CODE: dict[str, int] = {text: code for code, text in CODE_TO_TEXT.items()}
