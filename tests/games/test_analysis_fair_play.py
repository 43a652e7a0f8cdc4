"""Game analysis and fair play (issue 31): on an open day a second account learns nothing
of the deal from the analysis endpoint, the replay page or the job's log lines; once the day
is over the analysis works. The helpers are test_fair_play.py's (imported, not copied)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.utils import timezone

from games.models import Attempt, AttemptAnalysis
from games.services.deals import deal_schedule
from tests.factories import make_player, verified_deal
from tests.games.api_support import client_for, past_challenge_of
from tests.games.conftest import QUICK_LONG_SEED, QUICK_SEEDS
from tests.games.fair_play_support import (
    Reached,
    assert_nothing_hidden,
    cards_seen,
    log_lines,
    play_as_second_account,
    post,
    signed_in,
)
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

DEALS = [("astrocyte", QUICK_SEEDS["astrocyte"]), ("spider1", QUICK_LONG_SEED)]


@pytest.fixture(autouse=True)
def small_budget(settings: Any) -> None:
    settings.ANALYSIS_SECONDS = 10.0
    settings.ANALYSIS_POSITION_SECONDS = 2.0
    settings.ANALYSIS_POSITION_NODES = 10_000


@pytest.mark.parametrize(("variant", "seed"), DEALS, ids=[variant for variant, _ in DEALS])
def test_an_open_days_analysis_is_an_unknown_id_then_works_once_the_day_is_over(
    variant: str, seed: int, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    settings.CELERY_TASK_ALWAYS_EAGER = True  # nothing may be queued, in either mode
    deal = verified_deal(variant, seed)
    challenge = deal_schedule(deal=deal, date=timezone.now().date())
    rival_attempt = play_as_second_account(
        signed_in(make_player("rival")), Reached(), challenge, "won"
    )
    scout = make_player("scout")
    client = signed_in(scout)
    reached = Reached()
    mine = play_as_second_account(client, reached, challenge, "resigned_after_play")
    unknown = reached.add("unknown", post(client, "/api/v1/attempts/99999999/analysis/"))
    assert unknown.status_code == 404
    for attempt_id in (mine, rival_attempt):
        path = f"/api/v1/attempts/{attempt_id}/analysis/"
        for answer in (reached.add(path, post(client, path)), reached.add(path, client.get(path))):
            assert (answer.status_code, answer.json()) == (404, unknown.json())
        page = reached.add(f"/replay/{attempt_id}/", client.get(f"/replay/{attempt_id}/"))
        assert page.status_code < 500
    assert not AttemptAnalysis.objects.exists()
    attempt = Attempt.objects.get(pk=mine)
    assert_nothing_hidden(
        reached, deal, cards_seen(deal, list(attempt.log)), log_lines(caplog.records)
    )

    past_challenge_of(challenge)
    api = client_for(scout)
    for attempt_id in (mine, rival_attempt):
        asked = api.post(f"/api/v1/attempts/{attempt_id}/analysis/")
        assert asked.status_code in (200, 202), asked.content
    in_flight = (AttemptAnalysis.Status.PENDING, AttemptAnalysis.Status.RUNNING)
    wait_for(  # the embedded run's analysis threads
        lambda: not AttemptAnalysis.objects.filter(status__in=in_flight).exists(),
        60,
        "both analyses to end",
    )
    done = api.get(f"/api/v1/attempts/{rival_attempt}/analysis/").json()
    assert done["status"] == "done" and done["saved"]["played"] == len(deal.solution or [])
