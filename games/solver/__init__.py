"""The solver: finds a winning line for a deal with full information (Python, no Django).

``solve((variant, seed))`` or ``solve(board)`` returns a :class:`SolveResult`; a ``solved``
line has been replayed to a win by the engine's checked path. See docs/solver.md. Its hot
modules run compiled when the build is current (``games.engine.native``).
"""

from games.engine import native

native.enable(__name__, __path__)

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
