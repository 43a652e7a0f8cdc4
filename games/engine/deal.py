"""The deal from a seed (docs/rules.md, "Dealing from a seed"): SplitMix64 drives a
Fisher-Yates shuffle."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from .cards import RANKS, SUITS
from .variants import Variant

MASK64 = (1 << 64) - 1
MAX_SEED = MASK64


def splitmix64(seed: int) -> Iterator[int]:
    """The SplitMix64 stream whose state starts at ``seed``."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"a seed is an integer, not {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is between 0 and 2**64 - 1, not {seed}")
    return seed


def ordered_pack(variant: Variant) -> list[int]:
    copies = 8 // len(variant.suits)
    return [
        SUITS.index(suit) * 16 + rank
        for _ in range(copies)
        for suit in variant.suits
        for rank in range(1, len(RANKS) + 1)
    ]


def shuffled_pack(variant: Variant, seed: int) -> list[int]:
    pack = ordered_pack(variant)
    rng = splitmix64(check_seed(seed))
    for i in range(len(pack) - 1, 0, -1):
        j = next(rng) % (i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def deal_layout(variant: Variant, seed: int) -> tuple[list[list[int]], list[int]]:
    """Columns (bottom card first) and the stock (in dealing order) as card codes.

    Fresh lists on every call; the shuffle itself is remembered for the last few hundred
    deals (the server re-deals the day's deal on every post it replays).
    """
    columns, stock = _layout(variant, check_seed(seed))
    return [list(column) for column in columns], list(stock)


@lru_cache(maxsize=256)
def _layout(variant: Variant, seed: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    pack = shuffled_pack(variant, seed)
    columns: list[list[int]] = [[] for _ in range(variant.columns)]
    position = 0
    for round_ in range(max(variant.deal_counts)):
        for column, wanted in zip(columns, variant.deal_counts, strict=True):
            if wanted > round_:
                column.append(pack[position])
                position += 1
    return tuple(tuple(column) for column in columns), tuple(pack[position:])
