"""How far a position looks from a win: a penalty, lower is better.

In the spirit of KPatience's spider solver "chaos": every face-up card that does not sit on
the next card of its suit is a break, a face-down card is worse than a break, and empty
columns and free cells are worth having. The score only orders the search; it never prunes.

Two weightings: :data:`SPIDER` (the original one, tuned on Spider 1 suit) and
:data:`STAGED` (used by the staged search, see ``staged.py``), which also charges the
face-up cards that sit on top of face-down ones (they must all move before the next flip)
and makes cells dearer the fuller they are, so that a search does not park four cards to
flip one and then has no cell left to dig with.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine.cards import RANK_MASK

from .encoding import Chunk


@dataclass(frozen=True, slots=True)
class Weights:
    down: int = 4  # a face-down card
    brk: int = 2  # a card on a card that does not take it
    off_suit: int = 1  # on the next rank of another suit
    empty: int = -5  # an empty column
    stock: int = 1  # a card still in the stock
    home: int = -1  # a card on a foundation
    # cost of k cards in cells, k = 0..4 (cumulative)
    cells: tuple[int, ...] = (0, 2, 4, 6, 8)
    # a face-up card above face-down cards (it is in the way of the next flip)
    over_down: int = 0
    # a face-up card above face-down cards, times the face-down cards under it
    over_each_down: int = 0


SPIDER = Weights()
STAGED = Weights(cells=(0, 4, 10, 18, 30), over_down=1)

# STAGED (and a digging variant) with a card on the next rank of another suit counted as a
# full break: in two- and four-suit games such a card does not move with the one under it,
# so a stack of them is as stuck as a broken one (with 1, the stages built long mixed
# stacks that the last stage could not undo).
STAGED_SUIT = Weights(cells=(0, 4, 10, 18, 30), over_down=1, off_suit=2)
STAGED_DIG_SUIT = Weights(down=6, cells=(0, 5, 12, 21, 33), over_each_down=1, off_suit=2)
# Digging first: face-down cards dearer still (the stages of the hard deals left 20-40 of
# them for the last one), with breaks and empty columns to match, or with cheap cells.
STAGED_STRICT = Weights(down=10, brk=3, off_suit=3, empty=-8, cells=(0, 5, 12, 21, 33), over_down=1)
STAGED_DOWN = Weights(down=8, off_suit=2, cells=(0, 4, 10, 18, 30), over_down=1)
STAGED_EMPTY = Weights(down=6, off_suit=2, empty=-8, cells=(0, 3, 7, 12, 18), over_each_down=1)
STAGED_CELLS = Weights(down=5, off_suit=2, cells=(0, 2, 5, 9, 14), over_down=2)
# Breaks dearer than face-down cards relative to the ones above (each won Astrocyte deals
# that all six before lost at every width tried within 60 s).
STAGED_BREAKS = Weights(
    down=7, brk=3, off_suit=2, empty=-8, cells=(0, 5, 12, 21, 33), over_each_down=1
)
STAGED_OVER = Weights(down=8, brk=3, off_suit=3, empty=-6, cells=(0, 3, 7, 12, 18), over_down=2)
# The last stage (stock empty): every break alike, empty columns worth less than while
# dealing (nothing has to fill them before a deal), and cells cheap and flat, so the search
# is willing to park cards while it rebuilds the suits.
ENDGAME = Weights(brk=2, off_suit=2, empty=-3, cells=(0, 2, 4, 6, 8))

# The beam by line length (``beam.py``): about one for each thing that will still cost a
# move (a face-down card, a card that is not on the next card of its suit, a card in a
# cell), less one for an empty column, nothing for the stock (the beam keeps positions with
# different numbers of deals apart) or for cards home. Roughly the moves still to make:
# KPatience's and coolo/spider's "chaos". The weightings above, made to prove a deal, dig
# first whatever it costs; ranked by them the beam's lines were a third longer (Spider 4
# suits deal 1: 161 moves against 118 at width 100).
MOVES_LEFT = Weights(down=1, brk=1, off_suit=1, empty=-1, stock=0, home=0, cells=(0, 1, 2, 3, 4))


_CACHE_LIMIT = 400_000


class ColumnPenalties:
    """Memoized penalty of a column chunk (columns repeat a lot between nodes)."""

    def __init__(self, weights: Weights = SPIDER) -> None:
        self._cache: dict[Chunk, int] = {}
        self.weights = weights

    def __call__(self, chunk: Chunk) -> int:
        value = self._cache.get(chunk)
        if value is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            value = self._cache[chunk] = column_penalty(chunk, self.weights)
        return value


def column_penalty(chunk: Chunk, weights: Weights = SPIDER) -> int:
    length = chunk[0]
    if length == 0:
        return weights.empty
    down = chunk[1]
    penalty = weights.down * down
    if down:
        penalty += (weights.over_down + weights.over_each_down * down) * (length - down)
    brk = weights.brk
    off_suit = weights.off_suit
    # chunk[2:] is the column bottom first; compare each face-up card with the one under it
    for k in range(3 + down, 2 + length):
        upper = chunk[k]
        lower = chunk[k - 1]
        if upper + 1 == lower:
            continue
        if (upper & RANK_MASK) + 1 == (lower & RANK_MASK):
            penalty += off_suit
        else:
            penalty += brk
    return penalty


def global_penalty(
    cards_in_cells: int, home: int, stock_left: int, weights: Weights = SPIDER
) -> int:
    return weights.cells[cards_in_cells] + weights.home * home + weights.stock * stock_left
