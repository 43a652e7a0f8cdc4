"""Pace statistics: a game posted at a clock's even pace, or one that never pauses, is
evidence (low) in the staff's queue; a person's uneven pace is not."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random

import pytest

from games.services.attempts import attempt_push_actions, attempt_resign, attempt_start_ranked
from reviews.models import Review
from reviews.pace import MIN_POSTS, pace_evidence, post_gaps
from tests.factories import make_challenge, make_player, verified_deal
from tests.games.api_support import noon_of


def times_of(gaps: list[float]) -> list[float]:
    return list(itertools.accumulate(gaps))


def human(rng: random.Random, posts: int) -> list[float]:
    """Gaps as people take them: log-normal, a long think now and then."""
    gaps = [rng.lognormvariate(math.log(3.0), 0.6) for _ in range(posts)]
    return [gap + (rng.uniform(8, 30) if rng.random() < 0.04 else 0) for gap in gaps]


def test_a_clocks_even_pace_is_evidence() -> None:
    rng = random.Random(1)
    steady = times_of([2.0 + rng.uniform(-0.1, 0.1) for _ in range(60)])
    reason = pace_evidence(steady)
    assert reason is not None and "varied by" in reason


def test_a_program_paced_at_random_that_never_pauses_is_evidence() -> None:
    rng = random.Random(2)
    jittered = times_of([rng.uniform(1.0, 3.0) for _ in range(150)])  # varies, never stops
    reason = pace_evidence(jittered)
    assert reason is not None and "never paused" in reason and "varied by" not in reason


def test_people_are_not_evidence() -> None:
    rng = random.Random(3)
    for _ in range(200):
        assert pace_evidence(times_of(human(rng, rng.randint(40, 250)))) is None


def test_a_short_game_says_nothing_and_a_posts_actions_count_once() -> None:
    assert pace_evidence(times_of([2.0] * (MIN_POSTS - 1))) is None
    # Three actions in one post share the post's time: one gap, not three.
    assert post_gaps([2.0, 2.0, 2.0, 5.0]) == [2.0, 3.0]


@pytest.mark.django_db(transaction=True)
def test_a_game_posted_like_a_clock_reaches_the_queue_as_low() -> None:
    deal = verified_deal("spider1", 2)
    challenge = make_challenge(deal=deal, variant="spider1")
    player = make_player("metronome")
    start = noon_of(challenge)  # the 103 s played never cross midnight
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk, now=start)
    for offset, action in enumerate((deal.solution or [])[:50]):
        attempt_push_actions(
            attempt_id=attempt.pk,
            player=player,
            offset=offset,
            actions=[action],
            now=start + dt.timedelta(seconds=2.0 * (offset + 1)),
        )
    attempt_resign(attempt_id=attempt.pk, player=player, now=start + dt.timedelta(seconds=103))
    review = Review.objects.get(attempt_id=attempt.pk)
    assert review.severity == Review.Severity.LOW
    [item] = [item for item in review.evidence if item["kind"] == "pace_stats"]
    assert "varied by 0%" in item["text"]
