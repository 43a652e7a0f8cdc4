"""Beam search by line length: the first win it meets is among the shortest it looked at.

Layer d holds the positions reached in d moves (a compound step of k moves lands in layer
d + k); only the ``width`` best of a layer (lowest penalty) are expanded. Layers are
expanded in order, so a win found in layer d comes from a line of d moves, and no line of
``longest`` moves or more is looked at (the improve phase passes its best line's length).
It shares the ``Expander`` (moves, compound moves, transposition table, penalties) with
the other searches. Budgets are in positions: the result does not depend on the clock
unless the deadline stops it.
"""

from __future__ import annotations

import time

from games.engine import Board, Move

from .heuristic import Weights
from .macros import Macro
from .search import CHECK_EVERY, Expander, Lines


def beam_search(
    start: Board,
    *,
    width: int,
    weights: Weights,
    longest: int,
    max_nodes: int,
    deadline: float,
) -> tuple[list[Move] | None, int]:
    """A winning line shorter than ``longest`` (or None) and the positions generated."""
    expander = Expander(start, True, weights, len(start.variant.suits) > 1)
    lines = Lines()
    layers: dict[int, list[tuple[int, int, bytes]]] = {0: [(0, 0, expander.root_data(start))]}
    depth = 0
    expansions = 0
    while layers and depth < longest:
        layer = layers.pop(depth, None)
        if layer is None:
            depth = min(layers)
            continue
        layer.sort()
        for _, node, data in layer[:width]:
            expansions += 1
            if expansions % CHECK_EVERY == 0 and time.perf_counter() >= deadline:
                return None, expander.nodes
            if expander.nodes >= max_nodes:
                return None, expander.nodes
            children, winner = expander.children(data)
            if winner is not None:
                return lines.line_to(node, winner), expander.nodes
            for penalty, step, child in children:
                reached = depth + (len(step.moves) if isinstance(step, Macro) else 1)
                if reached < longest:
                    layers.setdefault(reached, []).append((penalty, lines.add(node, step), child))
        depth += 1
    return None, expander.nodes
