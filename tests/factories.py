"""The one set of factories the tests share: players, verified deals, challenges.

A verified deal for a test comes with a winning line stored in ``tests/data/solutions.json``
(found once by the solver) and replayed to a win by the engine's checked path here, instead
of running the solver in every test's setup. The pipeline's own tests
(tests/games/test_deal_verify.py, test_pipeline_worker.py) still verify deals for real.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from functools import cache
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from games import engine, solver
from games.models import DailyChallenge, Deal, commitment_for
from games.services.deals import deal_create

PASSWORD = "a-long-test-password-1"
SOLUTIONS = Path(__file__).parent / "data" / "solutions.json"

_names = itertools.count(1)
_board_seeds = itertools.count(1000)


def make_player(name: str | None = None, *, password: str | None = None) -> Any:
    """A player; with no ``password`` (the default) the hashing is skipped and the player
    signs in only by ``force_login``/``force_authenticate``; the browser tests give one."""
    username = name or f"player{next(_names)}"
    user = get_user_model()(username=username)
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save()
    return user


@cache
def stored_solutions() -> dict[str, list[str]]:
    solutions: dict[str, list[str]] = json.loads(SOLUTIONS.read_text())
    return solutions


def verified_deal(variant: str, seed: int, pool: str = Deal.Pool.DAILY) -> Deal:
    """A deal of the pipeline's making, verified with its stored winning line.

    The line is checked as the pipeline checks a solver's: replayed to a win by the engine.
    """
    solution = stored_solutions().get(f"{variant}:{seed}")
    if solution is None:
        raise LookupError(
            f"no stored solution for {variant} seed {seed}: add one to {SOLUTIONS.name} "
            f"(python -m games.solver {variant} {seed})"
        )
    result = engine.replay(variant, seed, solution)
    assert result.ok and result.board.is_won, f"the stored line of {variant}:{seed} does not win"
    deal = deal_create(variant=variant, seed=seed, pool=pool)
    deal.status = Deal.Status.VERIFIED
    deal.solution = solution
    deal.par = len(solution)
    deal.difficulty_label = "easy"
    deal.solver_version = str(solver.SOLVER_VERSION)
    deal.verified_at = timezone.now()
    deal.save()
    return deal


def make_challenge(
    date: dt.date | None = None, variant: str = "astrocyte", deal: Deal | None = None
) -> DailyChallenge:
    """A daily on ``date`` (today by default). Without ``deal``: a verified-looking deal with
    a fresh seed and no solution, for tests of boards that never play it."""
    if deal is None:
        seed = next(_board_seeds)
        deal = Deal.objects.create(
            variant=variant,
            seed=seed,
            nonce=f"n{seed}",
            commitment=commitment_for(variant, seed, f"n{seed}"),
            rules_version=1,
            status=Deal.Status.VERIFIED,
        )
    return DailyChallenge.objects.create(
        date=date or timezone.now().date(), variant=deal.variant, deal=deal
    )
