"""A game played as if it knew the stock: deals that fit better than chance allows.

A player who knows what the next deal brings (scouted by a spare account, say) can set the
columns' top cards so that the dealt cards land on their same-suit successor, building
runs for free. One who does not know cannot: whatever they chose, a dealt card they have
never seen is, given everything they have seen, a uniform draw from the cards they have
never seen (the deal is a uniform shuffle). So for each column of each deal the chance of
a fit is exact and known from the game alone:

    p = (unseen cards that fit the column's top) / (unseen cards)

and the number of fits of an honest game follows the sum of those chances (a
Poisson-binomial law; dealing without replacement only narrows it, so the tail computed
here is an upper bound). The test needs no model of how people play: its false-alarm rate
is the threshold, whatever the honest player's style.

"Seen" is what this attempt saw itself, undone actions included: a deal taken back and
dealt again shows cards seen the first time, so it is no trial; a face-down card turned up
and turned down again by an undo counts as seen. Nothing here leaves the server but the
counts and the probability (no card).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from games.engine import Board
from games.engine.cards import ACE, RANK_MASK, TEXT_TO_CODE

DEAL = "deal"

# A game whose deals fit this improbably well for a player who did not know the cards is
# reviewed (medium; high past the second bound); so is a player whose ranked games of the
# last FOREKNOWLEDGE_DAYS, taken together, do (a cheat that gains a little every day). Two
# looks, so the false-alarm rate per honest game is at most twice the first bound, whatever
# the player's style.
FOREKNOWLEDGE_P = 1e-3
FOREKNOWLEDGE_P_HIGH = 1e-6
FOREKNOWLEDGE_DAYS = 30


@dataclass(frozen=True)
class DealFits:
    """The deals of one game or more: each trial's chance of a fit, and the fits."""

    chances: tuple[float, ...]  # one per dealt card never seen, onto a top one could fit
    fits: int  # of those, how many landed on their same-suit successor

    @property
    def trials(self) -> int:
        return len(self.chances)

    @property
    def expected(self) -> float:
        """The fits expected of a player who did not know the cards."""
        return sum(self.chances)

    @property
    def p_value(self) -> float:
        """The chance of at least ``fits`` for a player who did not know the cards."""
        return chance_of_at_least(self.chances, self.fits)

    def __add__(self, other: DealFits) -> DealFits:
        return DealFits(self.chances + other.chances, self.fits + other.fits)

    def describe(self) -> str:
        return (
            f"of {self.trials} dealt cards it had never seen, {self.fits} landed on their "
            f"same-suit successor ({self.expected:.1f} expected by chance; probability "
            f"{self.p_value:.1g} for a player who did not know them)"
        )


NO_DEALS = DealFits((), 0)


def _unseen(board: Board, fewest_down: list[int]) -> Counter[int]:
    """The cards this attempt has never seen: face-down cards below the fewest face-down
    each column ever had, and the stock (called before a first deal of its cards)."""
    cards: Counter[int] = Counter()
    for (column, _), never_up in zip(board.iter_columns(), fewest_down, strict=True):
        cards.update(column[:never_up])
    cards.update(TEXT_TO_CODE[text] for text in board.state()["stock"])
    return cards


def chance_of_at_least(chances: Sequence[float], count: int) -> float:
    """P(at least ``count`` successes) of independent trials with these chances: exact, by
    the law of fewer than ``count`` successes built one trial at a time."""
    if count <= 0:
        return 1.0
    fewer = [1.0] + [0.0] * (count - 1)  # fewer[k]: P(k successes so far), k < count
    for p in chances:
        for k in range(count - 1, 0, -1):
            fewer[k] = fewer[k] * (1 - p) + fewer[k - 1] * p
        fewer[0] *= 1 - p
    return min(1.0, max(0.0, 1.0 - sum(fewer)))


def deal_fits(start: Board, log: Sequence[str]) -> DealFits:
    """Replay ``log`` from the deal's first position ``start`` and weigh its deals."""
    board = start.copy()
    fewest_down = [down for _, down in board.iter_columns()]
    deals_seen = 0  # the most deals this attempt ever had in force
    chances: list[float] = []
    fits = 0
    for action in log:
        first_time = action == DEAL and board.variant.stock_deals - board.deals_left >= deals_seen
        if first_time:
            unseen = _unseen(board, fewest_down)
            total = sum(unseen.values())
            tops = [column[-1] if column else None for column, _ in board.iter_columns()]
        played = board.play(action)
        if first_time and total:
            # (the dealt cards come first; any after them were turned up by a run sent home)
            for column, card in played.revealed[: len(tops)]:
                top = tops[column]
                if top is None or top & RANK_MASK == ACE:
                    continue  # nothing goes on an ace
                chances.append(unseen[top - 1] / total)
                fits += card == top - 1
        deals_seen = max(deals_seen, board.variant.stock_deals - board.deals_left)
        for column, (_, down) in enumerate(board.iter_columns()):
            fewest_down[column] = min(fewest_down[column], down)
    return DealFits(tuple(chances), fits)
