"""An independent reading of docs/rules.md's "Playing", for checking the engine's move generation.

It judges every text of the notation on a State JSON object, slowly and plainly; it shares
no code with games.engine beyond the variant table it is given.
"""

from __future__ import annotations

import itertools
from typing import Any

RANKS = "A23456789TJQK"
PILE_COUNTS = {"astrocyte": (8, 4), "spider1": (10, 0), "spider2": (10, 0), "spider4": (10, 0)}


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def all_texts(variant: str) -> list[str]:
    """Every canonical action text of a variant, from docs/rules.md's grammar (undo last)."""
    columns, cells = PILE_COUNTS[variant]
    piles = (
        [f"t{i}" for i in range(1, columns + 1)]
        + [f"c{i}" for i in range(1, cells + 1)]
        + [f"f{i}" for i in range(1, 9)]
    )
    texts = ["deal"]
    for src, dst in itertools.permutations(piles, 2):
        texts.append(f"{src}-{dst}")
        if src[0] == dst[0] == "t":
            texts += [f"{src}-{dst}:{n}" for n in range(2, 14)]
    return [*texts, "undo"]


def is_legal(state: dict[str, Any], text: str) -> bool:
    """Whether docs/rules.md allows the (non-undo) action ``text`` in ``state``."""
    if state["won"]:
        return False
    tableau, face_down = state["tableau"], state["face_down"]
    if text == "deal":
        return bool(state["stock"]) and all(tableau)
    piles, _, count_text = text.partition(":")
    src, dst = piles.split("-")
    count = int(count_text) if count_text else 1
    kind, index = src[0], int(src[1:]) - 1
    if dst[0] == "f":
        return False
    if kind == "f":
        if state["variant"] != "astrocyte" or not state["foundations"][index]:
            return False
        card = state["foundations"][index][-1]
    elif kind == "c":
        if dst[0] == "c" or state["cells"][index] is None:
            return False
        card = state["cells"][index]
    else:
        column = tableau[index]
        if count > len(column) - face_down[index]:
            return False
        group = column[len(column) - count :]
        for upper, lower in itertools.pairwise(group):
            if upper[1] != lower[1] or rank(upper) != rank(lower) + 1:
                return False
        card = group[0]
    target = int(dst[1:]) - 1
    if dst[0] == "c":
        return state["cells"][target] is None
    column = tableau[target]
    return not column or rank(column[-1]) == rank(card) + 1


def legal_texts(state: dict[str, Any]) -> list[str]:
    return [t for t in all_texts(state["variant"])[:-1] if is_legal(state, t)]
