"""How often the foreknowledge evidence (reviews/foreknowledge.py) catches a player who knows
the stock, and how often it names an honest one, by the number of days played.

    .venv/bin/python -m bench.foreknowledge_bench [--players 30] [--days 10] [--seed 1]

The engine alone (no database): each simulated player plays one game a day, each day a
new deal (spider1 and astrocyte in turn), up to 250 actions. Honest players follow
bench/scout_bench.py's reference policy; knowing players the same policy, except that
before each deal they move cards so that more of the dealt cards, which they know, land on
their same-suit successor (``choose_knowing``: what a scouted stock is good for). After
each day, a player's games so far are weighed together, as the review does with the last
30 days' games; printed, for 1, 3, 7 … days: the share of each kind whose games together
fall under the review's bound (``FOREKNOWLEDGE_P``), and the median
probability. CPU-bound and single-threaded.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from bench.scout_bench import reference_game
from games.engine import Board
from reviews.foreknowledge import FOREKNOWLEDGE_P, NO_DEALS, DealFits, deal_fits

VARIANTS = ("spider1", "astrocyte")
GAME_ACTIONS = 250


def one_game(variant: str, seed: int, rng: random.Random, knows: bool) -> DealFits:
    board = Board.deal(variant, seed)
    start = board.copy()
    return deal_fits(start, reference_game(board, rng, GAME_ACTIONS, knows_stock=knows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=30, help="of each kind")
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.monotonic()
    together = {kind: [NO_DEALS] * args.players for kind in ("honest", "knowing")}
    for day in range(1, args.days + 1):
        variant = VARIANTS[(day - 1) % len(VARIANTS)]
        seed = rng.getrandbits(32)  # the day's deal: the same for everyone
        for kind, games in together.items():
            for player in range(args.players):
                games[player] += one_game(variant, seed, rng, kind == "knowing")
        if day in (1, 3, 7, 14, 30) or day == args.days:
            parts = []
            for kind, games in together.items():
                p_values = [fits.p_value for fits in games]
                caught = sum(p < FOREKNOWLEDGE_P for p in p_values)
                parts.append(
                    f"{kind} {caught}/{args.players} under {FOREKNOWLEDGE_P:g} "
                    f"(median p {statistics.median(p_values):.2g})"
                )
            print(f"after {day} day(s): " + "; ".join(parts), flush=True)
    print(f"{time.monotonic() - began:.0f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
