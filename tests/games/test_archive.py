"""The archive: a past daily played again as practice, never on that day's board."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Attempt, BoardScoreCount, DailyChallenge, Deal
from games.services.attempts import attempt_push_actions, attempt_resign, attempt_start_ranked
from games.services.deals import deal_schedule
from games.signals import attempt_finished, attempt_progressed
from tests.factories import make_player, verified_deal
from tests.games.api_support import client_for, past_challenge_of, solution_of, todays_challenge
from tests.games.conftest import OTHER_QUICK_SEED, QUICK_SEED, QUICK_VARIANT

pytestmark = pytest.mark.django_db


def closed_day_with_a_winner() -> DailyChallenge:
    """A challenge played to a win by one player on its day, then the day closed."""
    challenge = todays_challenge()
    winner = make_player("winner")
    attempt, _ = attempt_start_ranked(player=winner, challenge_id=challenge.pk)
    attempt_push_actions(
        attempt_id=attempt.pk, player=winner, offset=0, actions=solution_of(challenge.deal)
    )
    return past_challenge_of(challenge)


def board_of(client: Any, challenge_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v1/leaderboards/challenges/{challenge_id}/")
    assert response.status_code == 200
    return dict(response.json())


def test_a_past_daily_is_played_again_unranked_off_its_board_and_off_the_streaks() -> None:
    challenge = closed_day_with_a_winner()
    late = make_player("late")
    client = client_for(late)
    board_before = board_of(client, challenge.pk)
    counts_before = list(BoardScoreCount.objects.values_list("challenge_id", "won", "score"))

    started = client.post(f"/api/v1/challenges/{challenge.pk}/practice/")
    assert started.status_code == 201, started.json()
    body = started.json()
    assert body["kind"] == "practice" and body["challenge_id"] == challenge.pk
    assert body["action_count"] == 0 and not body["over"]
    solution = solution_of(challenge.deal)
    played = client.post(
        f"/api/v1/attempts/{body['id']}/actions/", {"offset": 0, "actions": solution}, format="json"
    )
    assert played.status_code == 200 and played.json()["won"]

    # Nothing of it on the day's board, its counts, the player's stats or streaks.
    board_after = board_of(client, challenge.pk)
    assert board_after["top"] == board_before["top"]
    assert board_after["counts"] == board_before["counts"]
    assert board_after["me"] is None
    assert list(BoardScoreCount.objects.values_list("challenge_id", "won", "score")) == (
        counts_before
    )
    stats = client.get("/api/v1/leaderboards/players/late/").json()
    assert stats["stats"]["played"] == 0 and stats["stats"]["won"] == 0
    assert all(streak["best"] == 0 for streak in stats["streaks"])
    assert client.get(f"/api/v1/challenges/{challenge.pk}/").json()["my_attempt"] is None
    logs = client.get(f"/api/v1/challenges/{challenge.pk}/attempts/").json()["attempts"]
    assert [row["username"] for row in logs] == ["winner"]

    # Played again as often as one likes.
    again = client.post(f"/api/v1/challenges/{challenge.pk}/practice/")
    assert again.status_code == 201 and again.json()["id"] != body["id"]


def test_today_and_tomorrow_are_refused_exactly_as_an_unknown_id() -> None:
    today = todays_challenge()
    tomorrow = deal_schedule(
        deal=verified_deal(QUICK_VARIANT, OTHER_QUICK_SEED),
        date=timezone.now().date() + dt.timedelta(days=1),
    )
    # Someone plays today's daily; a second account tries to rehearse it through the archive.
    first = make_player("first")
    ranked, _ = attempt_start_ranked(player=first, challenge_id=today.pk)
    attempt_push_actions(
        attempt_id=ranked.pk, player=first, offset=0, actions=solution_of(today.deal)[:4]
    )
    attempt_resign(attempt_id=ranked.pk, player=first)
    second = client_for(make_player("second"))
    unknown = second.post(f"/api/v1/challenges/{tomorrow.pk + 1000}/practice/")
    assert unknown.status_code == 404
    for challenge in (today, tomorrow):
        refused = second.post(f"/api/v1/challenges/{challenge.pk}/practice/")
        assert refused.status_code == 404
        assert refused.json() == unknown.json()
    assert not Attempt.objects.filter(kind=Attempt.Kind.PRACTICE).exists()
    month = second.get(f"/api/v1/archive/?variant={QUICK_VARIANT}").json()
    assert month["days"] == []


def test_starting_needs_a_player() -> None:
    challenge = closed_day_with_a_winner()
    response = APIClient().post(f"/api/v1/challenges/{challenge.pk}/practice/")
    assert response.status_code in (401, 403)
    assert "error" in response.json()


def test_an_archive_game_pushes_nothing_to_the_days_watchers(
    django_capture_on_commit_callbacks: Any,
) -> None:
    challenge = closed_day_with_a_winner()
    heard: list[tuple[str, Any]] = []

    def listen(name: str) -> Any:
        def receiver(sender: Any, challenge_id: Any = None, **kwargs: Any) -> None:
            heard.append((name, challenge_id))

        return receiver

    on_progress, on_finish = listen("progressed"), listen("finished")
    attempt_progressed.connect(on_progress)
    attempt_finished.connect(on_finish)
    try:
        client = client_for(make_player())
        attempt_id = client.post(f"/api/v1/challenges/{challenge.pk}/practice/").json()["id"]
        with django_capture_on_commit_callbacks(execute=True):
            client.post(
                f"/api/v1/attempts/{attempt_id}/actions/",
                {"offset": 0, "actions": solution_of(challenge.deal)},
                format="json",
            )
    finally:
        attempt_progressed.disconnect(on_progress)
        attempt_finished.disconnect(on_finish)
    assert heard and all(challenge_id is None for _, challenge_id in heard), heard


def test_the_calendar_lists_the_days_that_are_over_month_by_month() -> None:
    today = timezone.now().date()
    shown = []
    for days_ago, seed in ((1, QUICK_SEED), (40, OTHER_QUICK_SEED)):
        deal = verified_deal(QUICK_VARIANT, seed)
        shown.append(
            DailyChallenge.objects.create(
                date=today - dt.timedelta(days=days_ago), variant=deal.variant, deal=deal
            )
        )
    recent, older = shown
    client = client_for(make_player())
    latest = client.get(f"/api/v1/archive/?variant={QUICK_VARIANT}").json()
    assert latest["month"] == recent.date.strftime("%Y-%m")
    assert [day["challenge_id"] for day in latest["days"]] == (
        [recent.pk, older.pk] if older.date.month == recent.date.month else [recent.pk]
    )
    assert latest["days"][0]["finished"] == 0 and latest["days"][0]["difficulty"] == "easy"
    earlier = client.get(
        f"/api/v1/archive/?variant={QUICK_VARIANT}&month={older.date.strftime('%Y-%m')}"
    ).json()
    assert older.pk in [day["challenge_id"] for day in earlier["days"]]
    if older.date.month != recent.date.month:
        assert latest["previous"] == older.date.strftime("%Y-%m")
        assert earlier["next"] == recent.date.strftime("%Y-%m")
    assert client.get("/api/v1/archive/?variant=astrocyte").json()["days"] == []


def test_the_calendar_without_a_query_is_the_first_daily_variant_s_latest_month() -> None:
    response = client_for(make_player()).get("/api/v1/archive/")
    assert response.status_code == 200
    assert response.json()["variant"] == settings.DAILY_VARIANTS[0]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("variant=nope", "variant"),
        (f"variant={QUICK_VARIANT}&month=2026-13", "month"),
        (f"variant={QUICK_VARIANT}&month=last", "month"),
    ],
)
def test_a_bad_calendar_query_says_which_field(query: str, field: str) -> None:
    response = client_for(make_player()).get(f"/api/v1/archive/?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["details"]


def test_a_withdrawn_deal_is_refused_with_a_reason_and_nothing_is_made() -> None:
    challenge = closed_day_with_a_winner()
    Deal.objects.filter(pk=challenge.deal_id).update(retired=True)
    client = client_for(make_player())
    refused = client.post(f"/api/v1/challenges/{challenge.pk}/practice/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "challenge_not_open"
    assert "withdrawn" in refused.json()["error"]["message"]
    assert not Attempt.objects.filter(kind=Attempt.Kind.PRACTICE).exists()
    assert client.get(f"/api/v1/archive/?variant={QUICK_VARIANT}").json()["days"] == []
