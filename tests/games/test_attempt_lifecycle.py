"""Attempt services: the day rolling over, plausibility flags, voiding, signals after commit,
and two concurrent posts to one attempt on PostgreSQL (the row lock)."""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games import engine
from games.models import Attempt, Deal
from games.selectors import day_end
from games.services.attempts import (
    attempt_push_actions,
    attempt_resign,
    attempt_start_practice,
    attempt_start_ranked,
    attempt_void,
    attempts_close_day,
)
from games.signals import attempt_finished, attempt_progressed, attempt_voided
from games.tasks import attempts_close_day_task
from tests.factories import make_player
from tests.games.api_support import (
    client_for,
    past_challenge,
    solution_of,
    solved_deal,
    todays_challenge,
)
from tests.threads_at_once import run_in_threads


def tomorrow_at(hour: int) -> dt.datetime:
    today = timezone.now().date()
    return dt.datetime.combine(today + dt.timedelta(days=1), dt.time(hour), tzinfo=dt.UTC)


@pytest.fixture
def signals() -> Any:
    received: list[tuple[str, dict[str, Any]]] = []

    def listener(name: str) -> Callable[..., None]:
        def receive(sender: Any, **kwargs: Any) -> None:
            # The committed instance comes along (listeners need not read it back).
            assert kwargs["attempt"].pk == kwargs["attempt_id"]
            ids = {k: v for k, v in kwargs.items() if k not in ("signal", "attempt")}
            received.append((name, ids))

        return receive

    receivers = {
        attempt_progressed: listener("progressed"),
        attempt_finished: listener("finished"),
        attempt_voided: listener("voided"),
    }
    for signal, receiver in receivers.items():
        signal.connect(receiver, weak=False)
    yield received
    for signal, receiver in receivers.items():
        signal.disconnect(receiver)


@pytest.mark.django_db
def test_the_day_rolling_over_closes_open_attempts(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any, signals: Any
) -> None:
    challenge = todays_challenge()
    solution = solution_of(challenge.deal)
    idle, busy, done = make_player(), make_player(), make_player()
    idle_attempt, _ = attempt_start_ranked(player=idle, challenge_id=challenge.pk)
    busy_attempt, _ = attempt_start_ranked(player=busy, challenge_id=challenge.pk)
    done_attempt, _ = attempt_start_ranked(player=done, challenge_id=challenge.pk)
    attempt_push_actions(attempt_id=busy_attempt.pk, player=busy, offset=0, actions=solution[:30])
    attempt_resign(attempt_id=done_attempt.pk, player=done)

    # Nothing to close while the day lasts.
    assert attempts_close_day() == []
    next_day = tomorrow_at(0) + dt.timedelta(seconds=5)
    monkeypatch.setattr(timezone, "now", lambda: next_day)
    with django_capture_on_commit_callbacks(execute=True):
        assert attempts_close_day_task() == 2
    assert attempts_close_day() == []  # safe to run twice

    busy_attempt.refresh_from_db()
    board = engine.replay("spider1", challenge.deal.seed_int, solution[:30]).board
    assert busy_attempt.end_reason == Attempt.EndReason.DAY_CLOSED
    assert busy_attempt.ended_at == day_end(challenge.date)
    assert busy_attempt.score == engine.score(30, busy_attempt.elapsed_seconds or 0.0, board)
    assert busy_attempt.log == solution[:30]
    idle_attempt.refresh_from_db()
    assert idle_attempt.end_reason == "day_closed" and idle_attempt.score == 500
    assert Attempt.objects.get(pk=done_attempt.pk).end_reason == "resigned"
    finished = sorted(kw["attempt_id"] for name, kw in signals if name == "finished")
    assert finished == sorted([idle_attempt.pk, busy_attempt.pk])
    assert {kw["challenge_id"] for _, kw in signals} == {challenge.pk}


@pytest.mark.django_db
def test_an_action_after_the_day_closed_ends_the_attempt_and_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    challenge = todays_challenge()
    player = make_player()
    client = client_for(player)
    attempt_id = client.post(f"/api/v1/challenges/{challenge.pk}/start/").json()["id"]
    solution = solution_of(challenge.deal)
    ok = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": 0, "actions": solution[:4]},
        format="json",
    )
    assert ok.status_code == 200
    next_day = tomorrow_at(3)
    monkeypatch.setattr(timezone, "now", lambda: next_day)

    late = client.post(
        f"/api/v1/attempts/{attempt_id}/actions/",
        {"offset": 4, "actions": solution[4:6]},
        format="json",
    )
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "attempt_over"
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.end_reason == "day_closed" and attempt.log == solution[:4]

    # Once the day is over its secrets are public: anyone can check the commitment.
    deal = challenge.deal
    detail = client.get(f"/api/v1/attempts/{attempt_id}/").json()
    assert detail["seed"] == str(deal.seed_int) and detail["nonce"] == deal.nonce
    public = APIClient().get(f"/api/v1/challenges/{challenge.pk}/").json()
    revealed = public["revealed"]
    assert public["open"] is False and public["seconds_left"] == 0
    text = f"{public['variant']}:{revealed['seed']}:{revealed['nonce']}"
    assert hashlib.sha256(text.encode()).hexdigest() == public["commitment"]
    assert revealed["start_state"] == engine.board_state(
        engine.Board.deal(deal.variant, deal.seed_int)
    )
    assert revealed["solution"] == solution_of(deal)
    # And yesterday's challenge no longer starts.
    refused = client_for(make_player()).post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "challenge_not_open"


@pytest.mark.django_db
def test_reading_an_attempt_of_a_closed_day_closes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    challenge = todays_challenge()
    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    next_day = tomorrow_at(1)
    monkeypatch.setattr(timezone, "now", lambda: next_day)
    body = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/").json()
    assert body["over"] and body["end_reason"] == "day_closed"


@pytest.mark.django_db
def test_past_and_future_challenges_do_not_start() -> None:
    past = past_challenge(days_ago=2)
    client = client_for(make_player())
    response = client.post(f"/api/v1/challenges/{past.pk}/start/")
    assert response.status_code == 409
    future = solved_deal(seed=1)
    from games.services.deals import deal_schedule

    tomorrow = deal_schedule(deal=future, date=timezone.now().date() + dt.timedelta(days=1))
    assert client.post(f"/api/v1/challenges/{tomorrow.pk}/start/").status_code == 404
    assert client.get(f"/api/v1/challenges/{tomorrow.pk}/").status_code == 404


@pytest.mark.django_db
def test_a_ranked_start_is_announced_after_the_commit_and_only_once(
    django_capture_on_commit_callbacks: Any, signals: Any
) -> None:
    challenge = todays_challenge()
    player = make_player()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt, created = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    assert created and signals == []
    for callback in callbacks:
        callback()
    assert signals == [("progressed", {"attempt_id": attempt.pk, "challenge_id": challenge.pk})]
    with django_capture_on_commit_callbacks(execute=True) as again:
        attempt_start_ranked(player=player, challenge_id=challenge.pk)
    assert again == [] and len(signals) == 1


@pytest.mark.django_db
def test_signals_follow_the_commit(django_capture_on_commit_callbacks: Any, signals: Any) -> None:
    challenge = todays_challenge()
    solution = solution_of(challenge.deal)
    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    first_deal = solution.index("deal")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt_push_actions(
            attempt_id=attempt.pk, player=player, offset=0, actions=solution[:first_deal]
        )
    assert signals == []  # plain moves are told too (the action count), after the commit
    for callback in callbacks:
        callback()
    assert signals == [("progressed", {"attempt_id": attempt.pk, "challenge_id": challenge.pk})]
    signals.clear()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt_push_actions(
            attempt_id=attempt.pk, player=player, offset=first_deal, actions=["deal"]
        )
    assert signals == []  # not before the commit
    for callback in callbacks:
        callback()
    assert signals == [("progressed", {"attempt_id": attempt.pk, "challenge_id": challenge.pk})]
    signals.clear()
    with django_capture_on_commit_callbacks(execute=True):
        attempt_push_actions(
            attempt_id=attempt.pk,
            player=player,
            offset=first_deal + 1,
            actions=solution[first_deal + 1 :],
        )
    assert [name for name, _ in signals] == ["progressed", "finished"]


@pytest.mark.django_db
def test_fast_play_is_flagged() -> None:
    start = timezone.now()
    player = make_player()
    solved_deal(pool=Deal.Pool.PRACTICE, seed=2)
    quick = attempt_start_practice(player=player, now=start)
    solution = solution_of(quick.deal)
    for i in range(0, len(solution), 40):
        attempt_push_actions(
            attempt_id=quick.pk,
            player=player,
            offset=i,
            actions=solution[i : i + 40],
            now=start + dt.timedelta(seconds=5 * (i // 40 + 1)),
        )
    quick.refresh_from_db()
    assert quick.won and quick.flagged
    assert "won in" in quick.flag_reason

    clicker = attempt_start_practice(player=player, now=start)
    for i in range(30):
        attempt_push_actions(
            attempt_id=clicker.pk,
            player=player,
            offset=i,
            actions=[solution[i]],
            now=start + dt.timedelta(seconds=0.05 * (i + 1)),
        )
    attempt_resign(attempt_id=clicker.pk, player=player, now=start + dt.timedelta(seconds=60))
    clicker.refresh_from_db()
    assert clicker.flagged and "median 0.050 s per action" in clicker.flag_reason

    human = attempt_start_practice(player=player, now=start)
    attempt_push_actions(
        attempt_id=human.pk,
        player=player,
        offset=0,
        actions=solution[:30],
        now=start + dt.timedelta(seconds=45),
    )  # one batch of 30 over 45 s: 1.5 s an action
    attempt_resign(attempt_id=human.pk, player=player, now=start + dt.timedelta(seconds=90))
    human.refresh_from_db()
    assert not human.flagged


@pytest.mark.django_db
def test_admins_see_flags_and_void(
    django_capture_on_commit_callbacks: Any, signals: Any, admin_client: Any
) -> None:
    challenge = todays_challenge()
    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    attempt_push_actions(
        attempt_id=attempt.pk, player=player, offset=0, actions=solution_of(challenge.deal)
    )
    attempt.refresh_from_db()
    assert attempt.flagged  # won in well under a minute
    listing = admin_client.get("/admin/games/attempt/?flagged__exact=1")
    assert listing.status_code == 200 and attempt.flag_reason in listing.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/games/attempt/",
            {"action": "void", "_selected_action": [attempt.pk]},
        )
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.voided and attempt.voided_at and "voided by admin" in attempt.void_reason
    assert ("voided", {"attempt_id": attempt.pk, "challenge_id": challenge.pk}) in signals
    assert LogEntry.objects.filter(object_id=str(attempt.pk)).exists()
    before = len(signals)
    attempt_void(attempt_id=attempt.pk, reason="again")  # voiding twice changes nothing
    assert len(signals) == before


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_posts_to_one_attempt_exactly_one_wins() -> None:
    challenge = todays_challenge()
    player = make_player()
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    solution = solution_of(challenge.deal)
    batches = [solution[:10], [solution[0], "undo", *solution[:8]]]
    barrier = threading.Barrier(len(batches))
    results: list[tuple[int, Any]] = []

    def post(actions: list[str]) -> None:
        try:
            client = client_for(player)
            barrier.wait()
            response = client.post(
                f"/api/v1/attempts/{attempt.pk}/actions/",
                {"offset": 0, "actions": actions},
                format="json",
            )
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    for _ in range(5):  # a few rounds, each on a fresh attempt
        run_in_threads(post, [(batch,) for batch in batches])
        codes = sorted(code for code, _ in results)
        assert codes == [200, 409], results
        winner = next(body for code, body in results if code == 200)
        loser = next(body for code, body in results if code == 409)
        assert loser["error"]["code"] == "offset_conflict"
        assert loser["error"]["details"] == {"offset": 10}
        attempt.refresh_from_db()
        assert len(attempt.log) == 10 and winner["offset"] == 10
        assert attempt.log in batches
        Attempt.objects.filter(pk=attempt.pk).update(log=[], action_times=[], action_count=0)
        results.clear()


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_starts_make_one_attempt() -> None:
    challenge = todays_challenge()
    player = make_player()
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def start() -> None:
        try:
            client = client_for(player)
            barrier.wait()
            codes.append(client.post(f"/api/v1/challenges/{challenge.pk}/start/").status_code)
        finally:
            connection.close()

    run_in_threads(start, [()] * 2)
    assert sorted(codes) == [200, 201]
    assert Attempt.objects.filter(challenge=challenge, player=player).count() == 1
