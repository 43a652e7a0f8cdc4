"""Ratings and fair play: on an open day, the ratings say nothing of that day.

A day is rated only once it is closed (games.selectors.day_is_closed), so a second account
that plays today's daily (and resigns, or plays on) learns from every ratings read exactly
what it would have learnt before anyone played: the same board, the same ratings, the same
history (the selectors of the player's page), no change for today, and no card it did not
turn up itself. Once the day is over
it is rated, for everyone at once.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Attempt
from games.services.deals import deal_schedule
from leaderboards.ratings.models import RatedDay, RatingChange
from leaderboards.ratings.selectors import player_ratings, rating_history
from leaderboards.ratings.services import ratings_rate_closed_days, ratings_rate_day
from tests.factories import make_challenge, make_player, verified_deal
from tests.games.api_support import past_challenge_of
from tests.games.conftest import QUICK_SEEDS
from tests.games.fair_play_support import (
    Reached,
    assert_nothing_hidden,
    cards_seen,
    play_as_second_account,
    signed_in,
)
from tests.leaderboards.conftest import make_attempt

pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/v1/leaderboards"


def rating_reads(client: Client, reached: Reached, players: list[Any]) -> dict[str, Any]:
    """Every ratings read about the variant and the players (not about one attempt): the
    rating board's API and page, and each player's ratings and history (the selectors the
    player's page shows)."""
    answers: dict[str, Any] = {}
    for path in (f"{API}/ratings/?variant=astrocyte&limit=200", f"{API}/ratings/?limit=1"):
        response = reached.add(path, client.get(path))
        assert response.status_code == 200, (path, response.content)
        answers[path] = response.json()
    page = reached.add("/leaderboards/ratings/", client.get("/leaderboards/ratings/"))
    assert page.status_code == 200
    for player in players:
        answers[f"{player.username} ratings"] = player_ratings(player)
        answers[f"{player.username} history"] = rating_history(player, "astrocyte")
        reached.texts.append((f"{player.username} ratings", json.dumps(answers, default=str)))
    return answers


def test_a_second_account_learns_nothing_of_an_open_day_from_the_ratings() -> None:
    today = timezone.now().date()
    scout, rival, main = make_player("scout"), make_player("rival"), make_player("main")
    # Three closed days rated: everyone has a rating and a history before today.
    for days_ago in (4, 3, 2):  # (today's moves to yesterday once closed)
        earlier = make_challenge(today - dt.timedelta(days=days_ago))
        for n, player in enumerate((rival, main, scout)):
            make_attempt(earlier, player, score=400 - n)
    assert len(ratings_rate_closed_days()) == 3
    challenge = deal_schedule(deal=verified_deal("astrocyte", QUICK_SEEDS["astrocyte"]), date=today)
    client = signed_in(scout)
    reached = Reached()
    before = rating_reads(client, reached, [scout, rival, main])

    # Today: the rival wins, the main account resigns, the scout plays a little and resigns.
    rival_client, main_client = signed_in(rival), signed_in(main)
    play_as_second_account(rival_client, Reached(), challenge, "won")
    play_as_second_account(main_client, Reached(), challenge, "resigned_after_play")
    mine = play_as_second_account(client, reached, challenge, "resigned_after_play")
    assert Attempt.objects.filter(challenge=challenge, ended_at__isnull=False).count() == 3

    # The job runs (as at any hour): an open day is not rated, whatever is asked.
    assert ratings_rate_closed_days() == []
    assert ratings_rate_day(challenge_id=challenge.pk) == "day_open"
    assert not RatedDay.objects.filter(challenge=challenge).exists()
    assert not RatingChange.objects.filter(challenge=challenge).exists()

    after = rating_reads(client, reached, [scout, rival, main])
    assert after == before, "a ratings read changed while the day is open"
    own = reached.json("own attempt", client.get(f"{API}/ratings/attempts/{mine}/"))
    assert own["rated"] is False and own["change"] is None
    assert "updates when the day closes" in own["message"]
    assert own["current"]["rated_days"] == 3
    rival_attempt = Attempt.objects.get(challenge=challenge, player=rival).pk
    stranger = client.get(f"{API}/ratings/attempts/{rival_attempt}/")
    assert reached.add("rival attempt", stranger).status_code == 404
    seen = cards_seen(challenge.deal, list(Attempt.objects.get(pk=mine).log))
    assert_nothing_hidden(reached, challenge.deal, seen, [])

    # Once the day is over, it is rated for everyone at once.
    past_challenge_of(challenge)
    assert ratings_rate_closed_days() == [challenge.pk]
    closed = client.get(f"{API}/ratings/attempts/{mine}/").json()
    assert closed["rated"] is True and closed["change"]["players"] == 3
    assert rating_reads(client, Reached(), [scout, rival, main]) != before
