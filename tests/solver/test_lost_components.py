"""The complete search's bookkeeping of lost components (games/solver/complete.search_graph,
rule 6 of docs/solver.md's "Proofs of loss") on random directed graphs, against the truth
computed backwards from the won nodes: the verdict is right, and no node it calls lost can
reach a won one, whatever the budget, whatever was already known lost."""

from __future__ import annotations

import random

import pytest

from games.solver.complete import search_graph


class RandomGraph:
    """Nodes 0..n-1, a few edges each (cycles and self-loops included), some nodes won."""

    def __init__(self, seed: int, n: int) -> None:
        rng = random.Random(seed)
        self.edges = [rng.sample(range(n), rng.randint(0, 3)) for _ in range(n)]
        self.won = {node for node in range(n) if rng.random() < 0.04}
        self.path = [0]

    def key(self) -> bytes:
        return self.path[-1].to_bytes(4, "big")

    def moves(self) -> list[int]:
        return list(self.edges[self.path[-1]])

    def enter(self, move: int) -> bool:
        self.path.append(move)
        return move in self.won

    def leave(self) -> None:
        self.path.pop()

    def expanded(self) -> None:
        pass

    def finished(self) -> None:
        pass

    def winnable(self) -> set[int]:
        """Every node from which a won node can be reached (a won node reached by one
        edge or more: the start itself is never looked at as won)."""
        parents: dict[int, set[int]] = {}
        for node, targets in enumerate(self.edges):
            for target in targets:
                parents.setdefault(target, set()).add(node)
        good: set[int] = set()
        todo = [parent for won in self.won for parent in parents.get(won, ())]
        while todo:
            node = todo.pop()
            if node not in good:
                good.add(node)
                todo.extend(parents.get(node, ()))
        return good


def _node(key: bytes) -> int:
    return int.from_bytes(key, "big")


@pytest.mark.parametrize("seed", range(300))
def test_lost_components_hold_no_winnable_node(seed: int) -> None:
    graph = RandomGraph(seed, n=random.Random(seed).randint(5, 60))
    winnable = graph.winnable()
    for budget in (3, 10, 1_000):
        lost: set[bytes] = set()
        graph.path = [0]
        found = search_graph(graph, budget, lost)
        assert {_node(key) for key in lost}.isdisjoint(winnable), (seed, budget)
        if found.moves is not None:
            assert found.moves[-1] in graph.won
        if budget == 1_000:  # more than the nodes: always decides
            assert found.exhausted is (0 not in winnable)
            assert (found.moves is not None) is (0 in winnable)


@pytest.mark.parametrize("seed", range(100))
def test_what_one_search_proved_lost_serves_the_next(seed: int) -> None:
    """As in a game's analysis: searches from several nodes share one ``lost`` set; every
    verdict stays right and no node called lost is winnable."""
    rng = random.Random(seed)
    graph = RandomGraph(seed, n=40)
    winnable = graph.winnable()
    lost: set[bytes] = set()
    for start in rng.sample(range(40), 8):
        graph.path = [start]
        found = search_graph(graph, rng.choice([5, 20, 1_000]), lost)
        if found.exhausted:
            assert start not in winnable
        if found.moves is not None:
            assert start in winnable
        assert {_node(key) for key in lost}.isdisjoint(winnable)
