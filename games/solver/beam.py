"""Beam search by line length: the first win it meets is among the shortest it looked at.

Layer d holds the positions reached in d moves (a compound step of k moves lands in layer
d + k). Of each layer only the ``width`` best *per number of deals made* are expanded: a
deal puts ten (or eight) cards on the columns, so a position just dealt looks worse than
one that has not dealt yet, and ranked together the dealt ones would never be kept. With a
width per deal count every stage of the game keeps its own beam (coolo/spider's design).
Layers are expanded in order, so a win found in layer d comes from a line of d moves, and
no line of ``longest`` moves or more is looked at (the improve phase passes its best line's
length).

The ranking is a weighting, by default :data:`heuristic.MOVES_LEFT`: about one for
everything that will still cost a move (a face-down card, a break, a card in a cell), so
that of two positions reached in the same number of moves the one nearer a win comes
first. It shares the ``Expander`` (moves, compound moves, transposition table, penalties)
with the other searches. Budgets are in positions: the result does not depend on the clock
unless the deadline stops it.
"""

from __future__ import annotations

from collections.abc import Callable

from games.engine import Board, Move

from .clock import now
from .encoding import deals_made
from .heuristic import MOVES_LEFT, Weights
from .macros import Macro
from .search import CHECK_EVERY, OPEN_OVERHEAD, Expander, Lines

Entry = tuple[int, int, bytes]  # penalty, node, encoded position
# Called every few dozen expansions with the positions generated and those waiting in later
# layers (the caller decides when to report progress).
Tick = Callable[[int, int], None]


def beam_search(
    start: Board,
    *,
    width: int,
    longest: int,
    max_nodes: int,
    deadline: float,
    weights: Weights = MOVES_LEFT,
    memory_cap_bytes: int | None = None,
    tick: Tick | None = None,
    fill_for_deal: bool = False,
) -> tuple[list[Move] | None, int]:
    """A winning line shorter than ``longest`` (or None) and the positions generated.

    None also when the deadline, ``max_nodes`` or the memory cap (the table's estimated
    bytes) stops it first. ``fill_for_deal``: see ``search.Expander``.
    """
    expander = Expander(start, True, weights, len(start.variant.suits) > 1, fill_for_deal)
    lines = Lines()
    layers: dict[int, list[Entry]] = {0: [(0, 0, expander.root_data(start))]}
    depth = 0
    expansions = 0
    while layers and depth < longest:
        layer = layers.pop(depth, None)
        if layer is None:
            depth = min(layers)
            continue
        for _, node, data in best_per_deal_count(layer, width):
            expansions += 1
            if expansions % CHECK_EVERY == 0:
                waiting = sum(map(len, layers.values()))
                if now() >= deadline or _too_big(expander, lines, waiting, memory_cap_bytes):
                    return None, expander.nodes
                if tick is not None:
                    tick(expander.nodes, waiting)
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


def best_per_deal_count(layer: list[Entry], width: int) -> list[Entry]:
    """The ``width`` lowest-penalty entries of each number of deals made (older first
    among equals), in penalty order."""
    layer.sort()
    kept: list[Entry] = []
    taken: dict[int, int] = {}
    for entry in layer:
        deals = deals_made(entry[2])
        count = taken.get(deals, 0)
        if count < width:
            taken[deals] = count + 1
            kept.append(entry)
    return kept


def _too_big(expander: Expander, lines: Lines, waiting: int, cap: int | None) -> bool:
    if cap is None:
        return False
    used = len(expander.seen) * expander.per_seen + waiting * OPEN_OVERHEAD + 16 * len(lines)
    return used > cap
