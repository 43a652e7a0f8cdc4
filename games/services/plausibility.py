"""Flags for the admins: ended ranked attempts that look played by a program, or copied.

A flag takes nothing off a board; an admin reads the reasons in /admin/games/attempt/ and
voids the attempt if they agree (docs/fair-play.md).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from django.conf import settings

from games.models import Attempt


def _median_seconds_per_action(times: list[float]) -> float:
    """Each batch's interval shared by its actions (one post carries one server time)."""
    per_action: list[float] = []
    previous, i = 0.0, 0
    while i < len(times):
        j = i
        while j < len(times) and times[j] == times[i]:
            j += 1
        per_action += [(times[i] - previous) / (j - i)] * (j - i)
        previous, i = times[i], j
    return statistics.median(per_action)


def _shares_a_run(log: Sequence[str], solution: Sequence[str], length: int) -> bool:
    """Whether some ``length`` consecutive actions of ``log`` stand, in order, in ``solution``."""
    if length <= 0:
        return True
    runs = {tuple(solution[j : j + length]) for j in range(len(solution) - length + 1)}
    return any(tuple(log[i : i + length]) in runs for i in range(len(log) - length + 1))


def longest_solution_run(log: Sequence[str], solution: Sequence[str], at_least: int) -> int:
    """The longest run of consecutive actions that ``log`` and ``solution`` share, if it is
    ``at_least`` long; else 0 (without searching further).

    A binary search on the length: a shared run of n actions holds one of every shorter
    length, so "shares a run of n" is monotone.
    """
    if at_least > min(len(log), len(solution)) or not _shares_a_run(log, solution, at_least):
        return 0
    low, high = at_least, min(len(log), len(solution))
    while low < high:
        middle = (low + high + 1) // 2
        if _shares_a_run(log, solution, middle):
            low = middle
        else:
            high = middle - 1
    return low


def solution_copy_reason(attempt: Attempt) -> str | None:
    """Why a ranked win looks copied from the deal's stored solution: its log holds at least
    ``PLAUSIBLE_SOLUTION_RUN_SHARE`` of the solution's actions as one contiguous run."""
    if attempt.kind != Attempt.Kind.RANKED or not attempt.won:
        return None
    solution = [str(action) for action in attempt.deal.solution or []]
    if not solution:
        return None
    share = settings.PLAUSIBLE_SOLUTION_RUN_SHARE
    wanted = max(1, math.ceil(share * len(solution)))
    run = longest_solution_run([str(action) for action in attempt.log], solution, wanted)
    if not run:
        return None
    return (
        f"{run} of the {len(solution)} actions of the stored solution played as one run "
        f"(flagged from {share:.0%})"
    )


def plausibility_flags(attempt: Attempt) -> list[str]:
    """Why an ended attempt looks faster than a human could play, or copied from the
    solution (empty when it does not)."""
    reasons = []
    elapsed = attempt.elapsed_seconds or 0.0
    if attempt.won and elapsed < settings.PLAUSIBLE_MIN_WIN_SECONDS:
        reasons.append(f"won in {elapsed:.1f} s (under {settings.PLAUSIBLE_MIN_WIN_SECONDS:g} s)")
    times = [float(t) for t in attempt.action_times]
    if len(times) >= settings.PLAUSIBLE_MIN_ACTIONS:
        median = _median_seconds_per_action(times)
        if median < settings.PLAUSIBLE_MIN_SECONDS_PER_ACTION:
            reasons.append(
                f"median {median:.3f} s per action over {len(times)} actions "
                f"(under {settings.PLAUSIBLE_MIN_SECONDS_PER_ACTION:g} s)"
            )
    copied = solution_copy_reason(attempt)
    if copied:
        reasons.append(copied)
    return reasons
