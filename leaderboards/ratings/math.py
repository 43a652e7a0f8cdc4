"""openskill's Plackett-Luce update of one match of teams of one player, in linear time.

``openskill.models.PlackettLuce.rate`` is the reference: this module takes its model (the
defaults: mu 25, sigma 25/3, beta 25/6, kappa 0.0001, tau 25/300) and computes exactly its
formulas (Weng and Lin 2011, Algorithm 4) for the case of a daily: every team is one
player, no weights, no scores, no balance, no margin, no sigma limit. Its own ``rate()``
loops over every pair of teams (``_sum_q``, ``_a`` and ``_compute`` are quadratic in the
number of teams): 100,000 players of one day would be 10^10 steps. Here the sums over
"every team ranked at or below q" are suffix sums over rank groups and the sums over "every
group ranked at or above i" prefix sums: the same numbers (to rounding) in O(n)
(tests/leaderboards/test_ratings_math.py compares them with ``rate()`` itself).

For player i with e_i = exp(mu_i / c), c^2 = sum(sigma_j^2 + beta^2) over the match, S_g the
sum of e_j over every player ranked in group g or below, and A_g the size of group g:

- ``omega_i = 1 / A_{g(i)} - e_i * sum_{g <= g(i)} 1 / S_g``, times sigma_i^2 / c;
- ``delta_i = sum_{g <= g(i)} (e_i / S_g) (1 - e_i / S_g)``, times sigma_i^2 / c^2 and
  gamma = sigma_i / c;
- ``mu_i += omega_i``; ``sigma_i *= sqrt(max(1 - delta_i, kappa))``;

after ``sigma_i = sqrt(sigma_i^2 + tau^2)`` first. openskill 6.2 then "averages" the mu
changes of tied players, but it compares each updated rating with itself (the result holds
the very objects it updated), so the average is zero and nothing changes: tied players keep
their own changes. This module does the same, since openskill's numbers are the reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # the defaults; the only model the ratings use
# The shown rating: openskill's ordinal, mu - Z * sigma (a cautious estimate: a new player
# shows 0).
Z = 3.0


def shown_rating(mu: float, sigma: float) -> float:
    return mu - Z * sigma


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float


def new_skill() -> Skill:
    return Skill(MODEL.mu, MODEL.sigma)


def rate_match(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """The new skill of each player of one match, given in rank order (``ranks`` ascending:
    lower is better; equal ranks are ties). Fewer than two players: unchanged."""
    n = len(skills)
    if n != len(ranks):
        raise ValueError(f"{n} skills but {len(ranks)} ranks")
    if any(ranks[i] > ranks[i + 1] for i in range(n - 1)):
        raise ValueError("players must be given in rank order")
    if n < 2:
        return list(skills)
    tau_squared = MODEL.tau * MODEL.tau
    beta_squared = MODEL.beta**2
    sigma_squared = [s.sigma * s.sigma + tau_squared for s in skills]
    c = math.sqrt(sum(s2 + beta_squared for s2 in sigma_squared))
    e = [math.exp(s.mu / c) for s in skills]
    # Rank groups: [start, end) slices of the players, best first.
    starts = [i for i in range(n) if i == 0 or ranks[i] != ranks[i - 1]]
    ends = [*starts[1:], n]
    # S_g: suffix sums of e over the groups.
    group_sums = [0.0] * len(starts)
    below = 0.0
    for g in range(len(starts) - 1, -1, -1):
        below += math.fsum(e[starts[g] : ends[g]])
        group_sums[g] = below
    out: list[Skill] = []
    inverse_sum = inverse_square_sum = 0.0
    for g, (start, end) in enumerate(zip(starts, ends, strict=True)):
        inverse_sum += 1.0 / group_sums[g]
        inverse_square_sum += 1.0 / (group_sums[g] * group_sums[g])
        size = end - start
        for i in range(start, end):
            s2 = sigma_squared[i]
            omega = (1.0 / size - e[i] * inverse_sum) * s2 / c
            delta = (e[i] * inverse_sum - e[i] * e[i] * inverse_square_sum) * s2 / (c * c)
            delta *= math.sqrt(s2) / c
            sigma = math.sqrt(s2) * math.sqrt(max(1.0 - delta, MODEL.kappa))
            out.append(Skill(skills[i].mu + omega, sigma))
    return out
