"""The linear Plackett-Luce update against openskill's own ``rate()`` (the reference)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from leaderboards.ratings.math import MODEL, Skill, new_skill, rate_match, shown_rating

skills = st.builds(
    Skill,
    mu=st.floats(min_value=-10.0, max_value=60.0, allow_nan=False),
    sigma=st.floats(min_value=0.05, max_value=12.0, allow_nan=False),
)


@st.composite
def matches(draw: st.DrawFn) -> tuple[list[Skill], list[int]]:
    """2 to 12 players in rank order; ranks like the board's RANK() (ties, then a gap)."""
    players = draw(st.lists(skills, min_size=2, max_size=12))
    tied_with_previous = draw(st.lists(st.booleans(), min_size=len(players), max_size=len(players)))
    ranks: list[int] = []
    for position, tied in enumerate(tied_with_previous, start=1):
        ranks.append(ranks[-1] if tied and ranks else position)
    return players, ranks


def openskill_rate(players: list[Skill], ranks: list[int]) -> list[Skill]:
    teams = [[MODEL.rating(mu=p.mu, sigma=p.sigma)] for p in players]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


@settings(max_examples=400, deadline=None)
@given(matches())
def test_the_linear_update_gives_openskills_numbers(match: tuple[list[Skill], list[int]]) -> None:
    players, ranks = match
    expected = openskill_rate(players, ranks)
    got = rate_match(players, ranks)
    for mine, theirs in zip(got, expected, strict=True):
        assert mine.mu == pytest.approx(theirs.mu, abs=1e-9, rel=1e-12)
        assert mine.sigma == pytest.approx(theirs.sigma, abs=1e-9, rel=1e-12)


def test_the_model_is_openskills_default_plackett_luce() -> None:
    default = PlackettLuce()
    assert (MODEL.mu, MODEL.sigma, MODEL.beta, MODEL.kappa, MODEL.tau) == (
        default.mu,
        default.sigma,
        default.beta,
        default.kappa,
        default.tau,
    )
    assert new_skill() == Skill(25.0, 25.0 / 3.0)
    assert shown_rating(25.0, 25.0 / 3.0) == pytest.approx(0.0)
    assert shown_rating(30.0, 2.0) == MODEL.rating(mu=30.0, sigma=2.0).ordinal()


def test_a_whole_tie_and_a_lone_player() -> None:
    players = [Skill(20.0, 5.0), Skill(30.0, 3.0), Skill(25.0, 8.0)]
    assert rate_match(players, [1, 1, 1]) == pytest.approx(openskill_rate(players, [1, 1, 1]))
    assert rate_match(players[:1], [1]) == players[:1]
    with pytest.raises(ValueError, match="rank order"):
        rate_match(players, [2, 1, 3])


def test_the_winner_gains_and_the_last_loses() -> None:
    after = rate_match([new_skill()] * 5, [1, 2, 3, 4, 5])
    assert after[0].mu > 25.0 > after[-1].mu
    assert all(s.sigma < 25.0 / 3.0 for s in after)


def test_a_day_of_100000_players_is_linear_time() -> None:
    """openskill's rate() is quadratic (10^10 steps here); this is one pass."""
    players = [Skill(25.0 + (i % 17) / 4, 3.0 + (i % 5)) for i in range(100_000)]
    ranks = [1 + i - i % 3 for i in range(100_000)]  # groups of three tied
    started = time.perf_counter()
    after = rate_match(players, ranks)
    assert time.perf_counter() - started < 5.0
    assert len(after) == 100_000
    assert after[0].mu - players[0].mu > 0 > after[-1].mu - players[-1].mu
