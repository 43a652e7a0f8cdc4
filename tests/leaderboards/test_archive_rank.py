"""'This would have ranked #N of M that day': the board's ranking, the board untouched."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from games.models import Attempt, BoardScoreCount, DailyChallenge
from games.services.archive import attempt_start_archive
from games.services.attempts import attempt_push_actions, attempt_resign, attempt_start_ranked
from tests.factories import make_player
from tests.games.api_support import client_for, noon_of, solution_of, todays_challenge

pytestmark = pytest.mark.django_db


def play_ranked(
    challenge: DailyChallenge, name: str, actions: list[str], seconds: float
) -> Attempt:
    """A ranked attempt that played ``actions`` ``seconds`` after its start (won, or resigned)."""
    player = make_player(name)
    start = noon_of(challenge)
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk, now=start)
    attempt_push_actions(
        attempt_id=attempt.pk,
        player=player,
        offset=0,
        actions=actions,
        now=start + dt.timedelta(seconds=seconds),
    )
    attempt.refresh_from_db()
    if not attempt.is_over:
        attempt_resign(
            attempt_id=attempt.pk, player=player, now=start + dt.timedelta(seconds=seconds)
        )
        attempt.refresh_from_db()
    return attempt


def test_the_rank_it_would_have_had_counts_the_days_scores_and_changes_nothing() -> None:
    challenge = todays_challenge()
    solution = solution_of(challenge.deal)
    fast = play_ranked(challenge, "fast", solution, 10)
    slow = play_ranked(challenge, "slow", solution, 200)
    play_ranked(challenge, "quitter", solution[:6], 30)
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )
    counts = sorted(BoardScoreCount.objects.values_list("won", "score", "attempts"))

    late = make_player("late")
    client = client_for(late)
    after_the_day = noon_of(challenge) + dt.timedelta(hours=1)  # the ranked games had ended

    def practice_won_in(seconds: float) -> dict[str, Any]:
        start = after_the_day
        attempt = attempt_start_archive(player=late, challenge_id=challenge.pk, now=start)
        attempt_push_actions(
            attempt_id=attempt.pk,
            player=late,
            offset=0,
            actions=solution,
            now=start + dt.timedelta(seconds=seconds),
        )
        response = client.get(f"/api/v1/leaderboards/attempts/{attempt.pk}/would-rank/")
        assert response.status_code == 200, response.json()
        return dict(response.json())

    # Between the two winners: second of four.
    between = practice_won_in(100)
    assert (between["rank"], between["of"], between["board_size"]) == (2, 4, 3)
    assert between["message"] == "This would have ranked #2 of 4 that day."
    # Equal to the fastest on won, score and time: it ended later, so it comes after it.
    fast.refresh_from_db()
    equal = practice_won_in(fast.elapsed_seconds or 0)
    assert equal["rank"] == 2
    # Slower than both winners, still above the one who did not win.
    assert slow.score is not None
    assert practice_won_in(400)["rank"] == 3

    # Not won, given up at once: its score beats the quitter's, its progress does not.
    quitter = Attempt.objects.get(player__username="quitter")
    start = after_the_day
    given_up = attempt_start_archive(player=late, challenge_id=challenge.pk, now=start)
    attempt_push_actions(
        attempt_id=given_up.pk, player=late, offset=0, actions=solution[:1], now=start
    )
    attempt_resign(attempt_id=given_up.pk, player=late, now=start)
    given_up.refresh_from_db()
    assert given_up.score is not None and quitter.score is not None
    assert given_up.score > quitter.score
    assert given_up.cards_turned_up < quitter.cards_turned_up
    url = f"/api/v1/leaderboards/attempts/{given_up.pk}/would-rank/"
    assert client.get(url).json()["rank"] == 4

    board = client.get(f"/api/v1/leaderboards/challenges/{challenge.pk}/").json()
    assert [row["username"] for row in board["top"]] == ["fast", "slow", "quitter"]
    assert sorted(BoardScoreCount.objects.values_list("won", "score", "attempts")) == counts


def test_a_game_left_with_no_action_is_not_ranked() -> None:
    challenge = todays_challenge()
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )
    player = make_player()
    attempt = attempt_start_archive(player=player, challenge_id=challenge.pk)
    client = client_for(player)
    url = f"/api/v1/leaderboards/attempts/{attempt.pk}/would-rank/"
    open_game = client.get(url)
    assert open_game.status_code == 403
    assert open_game.json()["error"]["code"] == "attempt_not_over"
    attempt_resign(attempt_id=attempt.pk, player=player)
    body = client.get(url).json()
    assert body["rank"] is None and body["of"] == 1 and "not ranked" in body["message"]


def test_only_ones_own_archive_game_has_a_would_be_rank() -> None:
    challenge = todays_challenge()
    ranked = play_ranked(challenge, "ranked", solution_of(challenge.deal)[:3], 5)
    DailyChallenge.objects.filter(pk=challenge.pk).update(
        date=timezone.now().date() - dt.timedelta(days=1)
    )
    owner, other = make_player(), make_player()
    archive = attempt_start_archive(player=owner, challenge_id=challenge.pk)
    attempt_resign(attempt_id=archive.pk, player=owner)
    url = "/api/v1/leaderboards/attempts/{}/would-rank/"
    stranger = client_for(other).get(url.format(archive.pk))
    unknown = client_for(other).get(url.format(archive.pk + 1000))
    assert stranger.status_code == unknown.status_code == 404
    assert stranger.json() == unknown.json()
    # A ranked game is on the board already: it has a rank there, not a would-be one.
    assert client_for(ranked.player).get(url.format(ranked.pk)).status_code == 404
