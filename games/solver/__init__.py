"""The solver: finds a winning line for a deal with full information (pure Python, no Django).

``solve((variant, seed))`` or ``solve(board)`` returns a :class:`SolveResult`; a ``solved``
line has been replayed to a win by the engine's checked path. See docs/solver.md.
"""

from .api import (
    SOLVED,
    SOLVER_VERSION,
    UNKNOWN,
    UNSOLVABLE,
    SolveResult,
    difficulty,
    solve,
    verify,
)
from .search import Progress

__all__ = [
    "SOLVED",
    "SOLVER_VERSION",
    "UNKNOWN",
    "UNSOLVABLE",
    "Progress",
    "SolveResult",
    "difficulty",
    "solve",
    "verify",
]
