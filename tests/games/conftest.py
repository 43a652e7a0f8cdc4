from __future__ import annotations

import pytest

# Seeds whose deals the solver proves winnable in well under a second (bench/solver_bench.py).
QUICK_SEEDS = {"astrocyte": 4, "spider1": 2, "spider2": 10, "spider4": 6}
# The variant the pipeline tests verify and schedule: its quick deals solve in well under a second.
QUICK_VARIANT = "spider1"
QUICK_SEED = QUICK_SEEDS[QUICK_VARIANT]
OTHER_QUICK_SEED = 1
# A quick deal whose seed is long enough to be searched for in logs.
QUICK_LONG_SEED = 7777777777777777777
# A deal that keeps the solver busy for a few seconds, then is solved (variant, seed).
SLOW_SEED = ("spider1", 6)
# A deal the solver has not won in 60 s (docs/solver.md): a verification runs to its limit.
UNWON_IN_A_MINUTE = ("spider4", 12)
# A pipeline that draws random deals of QUICK_VARIANT, bounded in positions with a time limit
# out of reach: every one of seeds 1-200 is won within 100,000 positions (docs/solver.md,
# "Winnability survey"), so a draw gets the same verdict on a slow machine as on a fast one.
QUICK_DRAW_LIMITS = {"SOLVER_SECONDS": "600", "SOLVER_NODES": "100000"}


@pytest.fixture
def quick_solver(settings: pytest.FixtureRequest) -> None:
    """A verification bounded in positions, with a time limit out of reach: a quick deal
    (a few thousand positions) is proven on any machine."""
    settings.SOLVER_SECONDS = 600.0  # type: ignore[attr-defined]
    settings.SOLVER_NODES = 200_000  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _fresh_throttles(fresh_throttles: None) -> None:
    """Every games test gets its own throttle counts (tests/conftest.py)."""
