"""The four games this engine plays, as data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Variant:
    id: str
    columns: int
    deal_counts: tuple[int, ...]  # cards each column receives at the deal
    cells: int
    suits: str
    stock_deals: int = 5
    foundations: int = 8

    @property
    def can_take_back(self) -> bool:
        """Whether a foundation's top card may come back into play (Astrocyte only)."""
        return self.cells > 0

    @property
    def stock_size(self) -> int:
        return self.columns * self.stock_deals

    def __repr__(self) -> str:
        return f"VARIANTS[{self.id!r}]"


_SPIDER_DEAL = (6, 6, 6, 6, 5, 5, 5, 5, 5, 5)

ASTROCYTE = Variant("astrocyte", 8, (8,) * 8, 4, "SHDC")
SPIDER1 = Variant("spider1", 10, _SPIDER_DEAL, 0, "S")
SPIDER2 = Variant("spider2", 10, _SPIDER_DEAL, 0, "SH")
SPIDER4 = Variant("spider4", 10, _SPIDER_DEAL, 0, "SHDC")

VARIANTS: dict[str, Variant] = {v.id: v for v in (ASTROCYTE, SPIDER1, SPIDER2, SPIDER4)}

for _v in VARIANTS.values():
    assert sum(_v.deal_counts) + _v.stock_size == 104, _v


def get_variant(name: object) -> Variant:
    """The variant called ``name``; ``ValueError`` naming the known ones otherwise."""
    variant = VARIANTS.get(name) if isinstance(name, str) else None
    if variant is None:
        known = ", ".join(VARIANTS)
        raise ValueError(f"unknown variant {name!r} (known: {known})")
    return variant
