"""How far a position looks from a win: a penalty, lower is better.

In the spirit of KPatience's spider solver "chaos": every face-up card that does not sit on
the next card of its suit is a break, a face-down card is worse than a break, and empty
columns and free cells are worth having. The score only orders the search; it never prunes.
"""

from __future__ import annotations

from .encoding import Chunk

W_DOWN = 4  # a face-down card
W_BREAK = 2  # a card on a card that does not take it
W_OFF_SUIT = 1  # on the next rank of another suit
W_EMPTY = -5  # an empty column
W_STOCK = 1  # a card still in the stock
W_CELL = 2  # a card waiting in a cell
W_HOME = -1  # a card on a foundation

_CACHE_LIMIT = 400_000


class ColumnPenalties:
    """Memoized penalty of a column chunk (columns repeat a lot between nodes)."""

    def __init__(self) -> None:
        self._cache: dict[Chunk, int] = {}

    def __call__(self, chunk: Chunk) -> int:
        value = self._cache.get(chunk)
        if value is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            value = self._cache[chunk] = column_penalty(chunk)
        return value


def column_penalty(chunk: Chunk) -> int:
    length = chunk[0]
    if length == 0:
        return W_EMPTY
    down = chunk[1]
    penalty = W_DOWN * down
    # chunk[2:] is the column bottom first; compare each face-up card with the one under it
    for k in range(3 + down, 2 + length):
        upper = chunk[k]
        lower = chunk[k - 1]
        if upper + 1 == lower:
            continue
        if (upper & 15) + 1 == (lower & 15):
            penalty += W_OFF_SUIT
        else:
            penalty += W_BREAK
    return penalty


def global_penalty(cards_in_cells: int, home: int, stock_left: int) -> int:
    return W_CELL * cards_in_cells + W_HOME * home + W_STOCK * stock_left
