"""The attempt lifecycle through the HTTP API: today, start, actions, win, retries, conflicts,
refusals, resign, hints, and a scan of every response for cards the player has not seen."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import engine
from games.models import Attempt, DailyChallenge, Deal
from tests.factories import make_player
from tests.games.api_support import (
    board_after,
    client_for,
    hidden_cards,
    post_actions,
    solution_of,
    solved_deal,
    todays_challenge,
)
from tests.games.hints_support import search_budget

pytestmark = pytest.mark.django_db


class Clock:
    """The server's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = timezone.now().replace(hour=1, minute=0, second=0, microsecond=0)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(timezone, "now", fake)
    return fake


def secret_values(data: Any) -> list[Any]:
    """Every non-null value under a "seed" or "nonce" key, at any depth."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("seed", "nonce") and value is not None:
                found.append(value)
            found += secret_values(value)
    elif isinstance(data, list):
        for item in data:
            found += secret_values(item)
    return found


def assert_no_secrets(response: Any, deal: Deal) -> None:
    # The quick deal's seed (2) is too short to look for as text; the nonce is not.
    assert deal.nonce not in response.content.decode()
    assert secret_values(response.json()) == []


def test_whole_lifecycle_signup_today_start_play_win(clock: Clock) -> None:
    challenge = todays_challenge()
    deal = challenge.deal
    solution = solution_of(deal)
    client = APIClient()
    signup = client.post(
        "/api/v1/auth/signup/", {"username": "astro", "password": "x-Long-pass-9"}, format="json"
    )
    assert signup.status_code == 201, signup.content

    today = client.get("/api/v1/challenges/today/")
    assert today.status_code == 200
    assert_no_secrets(today, deal)
    [entry] = today.json()["challenges"]
    start_board = engine.Board.deal(deal.variant, deal.seed_int)
    assert entry["id"] == challenge.pk
    assert entry["variant"] == "spider1"
    assert entry["commitment"] == deal.commitment
    assert entry["par"] == deal.par
    assert entry["state"] == engine.board_view(start_board)
    assert entry["my_attempt"] is None and entry["revealed"] is None
    assert 0 < entry["seconds_left"] <= 24 * 3600

    started = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert started.status_code == 201, started.content
    attempt_id = started.json()["id"]
    assert started.json()["state"] == engine.board_view(start_board)
    again = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert again.status_code == 200 and again.json()["id"] == attempt_id
    assert Attempt.objects.filter(challenge=challenge).count() == 1

    offset, batch_times = 0, list[float]()
    while offset < len(solution):
        clock.advance(7.5)
        batch = solution[offset : offset + 10]
        before = board_after(deal, solution[:offset])
        response = post_actions(client, attempt_id, offset, batch)
        assert response.status_code == 200, response.content
        assert_no_secrets(response, deal)
        body = response.json()
        offset += len(batch)
        batch_times.append(7.5 * len(batch_times) + 7.5)
        after = board_after(deal, solution[:offset])
        assert body["offset"] == body["action_count"] == offset
        assert body["state"] == engine.board_view(after)
        assert body["legal_actions"] == after.legal_actions()
        assert body["deals_left"] == after.deals_left
        assert body["runs_completed"] == after.complete_foundations
        # The cards that turned face up are exactly those that left the hidden ones.
        turned = Counter(hidden_cards(before)) - Counter(hidden_cards(after))
        assert Counter(card["card"] for card in body["revealed"]) == turned
        assert body["won"] is after.is_won and body["over"] is after.is_won
        # Every other read of the same moment shows no more than the engine's view either.
        if not after.is_won:
            for url in (f"/api/v1/attempts/{attempt_id}/", f"/api/v1/challenges/{challenge.pk}/"):
                read = client.get(url)
                assert_no_secrets(read, deal)
                assert read.json().get("start_state") is None
            assert client.get(f"/api/v1/attempts/{attempt_id}/").json()["state"] == body["state"]

    assert body["won"] is True
    attempt = Attempt.objects.get(pk=attempt_id)
    final_board = board_after(deal, solution)
    assert attempt.end_reason == Attempt.EndReason.WON and attempt.won
    assert attempt.elapsed_seconds == pytest.approx(batch_times[-1])
    assert attempt.score == engine.score(len(solution), batch_times[-1], final_board)
    assert body["score"]["total"] == attempt.score
    assert attempt.log == solution and attempt.action_count == len(solution)
    assert attempt.action_times[0] == pytest.approx(7.5)
    assert attempt.runs_completed == 8 and attempt.deals_left == 0
    # About 100 s and several seconds an action: human enough; but it is the stored solution.
    assert attempt.flagged
    assert attempt.flag_reason == (
        f"{len(solution)} of the {len(solution)} actions of the stored solution played as "
        "one run (flagged from 80%)"
    )

    detail = client.get(f"/api/v1/attempts/{attempt_id}/").json()
    assert detail["over"] and detail["won"] and detail["end_reason"] == "won"
    assert detail["log"] == solution
    # Not until the day is over, for everyone at once: the deal as the player saw it.
    assert detail["start_state"] == engine.board_view(start_board)
    assert detail["deal_revealed"] is False
    assert detail["seed"] is None and detail["nonce"] is None

    late = post_actions(client, attempt_id, len(solution), ["undo"])
    assert late.status_code == 409 and late.json()["error"]["code"] == "attempt_over"
    retry = post_actions(client, attempt_id, offset - len(batch), batch)
    assert retry.status_code == 200 and retry.json() == body


@pytest.fixture
def playing() -> tuple[APIClient, Attempt]:
    challenge = todays_challenge()
    player = make_player()
    client = client_for(player)
    response = client.post(f"/api/v1/challenges/{challenge.pk}/start/")
    assert response.status_code == 201
    return client, Attempt.objects.get(pk=response.json()["id"])


def test_a_retried_batch_gets_the_same_answer_and_stores_nothing_twice(
    playing: tuple[APIClient, Attempt],
) -> None:
    client, attempt = playing
    solution = solution_of(attempt.deal)
    first = post_actions(client, attempt.pk, 0, solution[:5])
    second = post_actions(client, attempt.pk, 5, solution[5:8])
    assert first.status_code == second.status_code == 200
    assert post_actions(client, attempt.pk, 0, solution[:5]).json() == first.json()
    assert post_actions(client, attempt.pk, 5, solution[5:8]).json() == second.json()
    attempt.refresh_from_db()
    assert attempt.log == solution[:8] and len(attempt.action_times) == 8


def test_a_stale_or_conflicting_offset_gets_409_with_the_current_offset(
    playing: tuple[APIClient, Attempt],
) -> None:
    client, attempt = playing
    solution = solution_of(attempt.deal)
    assert post_actions(client, attempt.pk, 0, solution[:3]).status_code == 200
    for offset, actions in [(0, [solution[0], "undo"]), (1, solution[1:4]), (5, ["deal"])]:
        response = post_actions(client, attempt.pk, offset, actions)
        assert response.status_code == 409, (offset, actions)
        error = response.json()["error"]
        assert error["code"] == "offset_conflict" and error["details"] == {"offset": 3}
    attempt.refresh_from_db()
    assert attempt.log == solution[:3]


@pytest.mark.parametrize(
    ("bad", "code", "kind"),
    [
        ("t1-f1", "illegal_action", "illegal"),
        ("t11-t1", "invalid_action", "invalid"),
        ("T1-T2", "invalid_action", "invalid"),
        ("t1-t1", "invalid_action", "invalid"),
    ],
)
def test_a_refused_action_mid_batch_stores_nothing(
    playing: tuple[APIClient, Attempt], bad: str, code: str, kind: str
) -> None:
    client, attempt = playing
    solution = solution_of(attempt.deal)
    assert post_actions(client, attempt.pk, 0, solution[:2]).status_code == 200
    response = post_actions(client, attempt.pk, 2, [*solution[2:5], bad, solution[5]])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert error["details"]["index"] == 5
    assert error["details"]["action"] == bad
    assert error["details"]["kind"] == kind
    assert error["details"]["reason"]
    attempt.refresh_from_db()
    assert attempt.log == solution[:2] and len(attempt.action_times) == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "offset"),
        ({"offset": 0}, "actions"),
        ({"offset": -1, "actions": ["deal"]}, "offset"),
        ({"offset": "zero", "actions": ["deal"]}, "offset"),
        ({"offset": 0, "actions": "deal"}, "actions"),
        ({"offset": 0, "actions": []}, "actions"),
        ({"offset": 0, "actions": ["deal", 7]}, "actions"),
        ({"offset": 0, "actions": [None]}, "actions"),
        ({"offset": 0, "actions": [["deal"]]}, "actions"),
        ({"offset": 0, "actions": ["x" * 100]}, "actions"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(
    playing: tuple[APIClient, Attempt], body: dict[str, Any], field: str
) -> None:
    client, attempt = playing
    response = client.post(f"/api/v1/attempts/{attempt.pk}/actions/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["details"]


def test_a_non_string_action_is_named_by_its_index(playing: tuple[APIClient, Attempt]) -> None:
    client, attempt = playing
    response = post_actions(client, attempt.pk, 0, ["deal", "deal", 12])
    assert response.status_code == 400
    assert "2" in response.json()["error"]["details"]["actions"]


def test_non_json_and_non_object_bodies_are_400(playing: tuple[APIClient, Attempt]) -> None:
    client, attempt = playing
    url = f"/api/v1/attempts/{attempt.pk}/actions/"
    broken = client.post(url, "{not json", content_type="application/json")
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "parse_error"
    listed = client.post(url, json.dumps([1, 2]), content_type="application/json")
    assert listed.status_code == 400 and listed.json()["error"]["code"] == "invalid"


def test_too_large_a_batch_is_refused(playing: tuple[APIClient, Attempt], settings: Any) -> None:
    client, attempt = playing
    settings.ACTIONS_MAX_BATCH = 3
    response = post_actions(client, attempt.pk, 0, ["deal"] * 4)
    assert response.status_code == 400 and "actions" in response.json()["error"]["details"]


def test_resign_ends_the_attempt_with_the_position_reached(
    playing: tuple[APIClient, Attempt],
) -> None:
    client, attempt = playing
    solution = solution_of(attempt.deal)
    assert post_actions(client, attempt.pk, 0, solution[:20]).status_code == 200
    response = client.post(f"/api/v1/attempts/{attempt.pk}/resign/")
    assert response.status_code == 200
    body = response.json()
    attempt.refresh_from_db()
    board = board_after(attempt.deal, solution[:20])
    assert attempt.end_reason == "resigned" and not attempt.won
    assert attempt.score == engine.score(20, attempt.elapsed_seconds or 0.0, board)
    assert body["over"] and body["log"] == solution[:20]
    assert body["legal_actions"] == []
    parts = client.get(f"/api/v1/attempts/{attempt.pk}/").json()["score_parts"]
    breakdown = engine.score_breakdown(20, attempt.elapsed_seconds or 0.0, board)
    assert parts["total"] == attempt.score == breakdown.total
    assert (parts["actions"], parts["time_penalty"]) == (20, breakdown.time_penalty)
    made = (
        parts["base"]
        - parts["actions"]
        - parts["time_penalty"]
        + parts["foundation_bonus"]
        + parts["win_bonus"]
    )
    assert max(0, made) == parts["total"]
    again = client.post(f"/api/v1/attempts/{attempt.pk}/resign/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "attempt_over"
    late = post_actions(client, attempt.pk, 20, solution[20:21])
    assert late.status_code == 409 and late.json()["error"]["code"] == "attempt_over"


def test_attempts_are_private_and_starting_needs_a_player(
    playing: tuple[APIClient, Attempt],
) -> None:
    _, attempt = playing
    stranger = client_for(make_player())
    assert stranger.get(f"/api/v1/attempts/{attempt.pk}/").status_code == 404
    response = post_actions(stranger, attempt.pk, 0, ["deal"])
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    anonymous = APIClient()
    response = anonymous.post(f"/api/v1/challenges/{attempt.challenge_id}/start/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert anonymous.get(f"/api/v1/attempts/{attempt.pk}/").status_code == 401


def test_hints_are_refused_in_ranked_and_given_in_practice(
    playing: tuple[APIClient, Attempt], settings: Any
) -> None:
    client, attempt = playing
    refused = client.get(f"/api/v1/attempts/{attempt.pk}/hint/")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "hints_not_allowed"
    assert "practice" in refused.json()["error"]["message"]

    search_budget(settings)
    solved_deal(pool=Deal.Pool.PRACTICE, seed=1)
    practice = client.post("/api/v1/practice/start/", {"variant": "spider1"}, format="json")
    assert practice.status_code == 201, practice.content
    practice_id = practice.json()["id"]
    hint = client.get(f"/api/v1/attempts/{practice_id}/hint/")
    assert hint.status_code == 200
    action = hint.json()["action"]
    board = board_after(Attempt.objects.get(pk=practice_id).deal, [])
    assert action in board.legal_actions()
    assert post_actions(client, practice_id, 0, [action]).status_code == 200
    # Practice deals are never dailies: a practice attempt shows its whole deal once it ends
    # (not its seed: the pool is reused), and only then.
    assert client.get(f"/api/v1/attempts/{practice_id}/").json()["start_state"] is None
    ended = client.post(f"/api/v1/attempts/{practice_id}/resign/").json()
    assert ended["deal_revealed"] is True and ended["seed"] is None
    assert ended["start_state"] == engine.board_state(board)
    step = client.get(f"/api/v1/attempts/{practice_id}/replay/", {"step": 0}).json()
    assert step["cards_revealed"] is True and step["state"] == engine.board_state(board)


def test_a_daily_deal_is_never_served_in_practice(playing: tuple[APIClient, Attempt]) -> None:
    client, attempt = playing
    # Even a daily's deal wrongly put in the practice pool stays out of practice.
    Deal.objects.filter(pk=attempt.deal_id).update(pool=Deal.Pool.PRACTICE)
    response = client.post("/api/v1/practice/start/", {}, format="json")
    assert response.status_code == 503 and response.json()["error"]["code"] == "no_practice_deal"
    assert not Attempt.objects.filter(kind=Attempt.Kind.PRACTICE).exists()


def test_practice_needs_a_verified_practice_deal(playing: tuple[APIClient, Attempt]) -> None:
    client, _ = playing
    response = client.post("/api/v1/practice/start/", {}, format="json")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "no_practice_deal"
    bad = client.post("/api/v1/practice/start/", {"variant": "chess"}, format="json")
    assert bad.status_code == 400 and "variant" in bad.json()["error"]["details"]


def test_practice_of_a_variant_whose_pool_is_not_kept_is_a_400_naming_it(
    playing: tuple[APIClient, Attempt], settings: Any
) -> None:
    """Its deals would never come: not 503 "try again soon" forever."""
    client, _ = playing
    settings.PRACTICE_VARIANTS = ["astrocyte", "spider1"]
    answer = client.post("/api/v1/practice/start/", {"variant": "spider4"}, format="json")
    assert answer.status_code == 400
    assert "spider4" in answer.json()["error"]["details"]["variant"][0]
    assert not Attempt.objects.filter(kind=Attempt.Kind.PRACTICE).exists()
    kept = client.post("/api/v1/practice/start/", {"variant": "spider1"}, format="json")
    assert kept.status_code == 503 and kept.json()["error"]["code"] == "no_practice_deal"


def test_today_without_dailies_says_so() -> None:
    response = APIClient().get("/api/v1/challenges/today/")
    assert response.status_code == 200
    assert response.json()["challenges"] == []
    assert "No daily challenge" in response.json()["message"]


def test_today_says_how_far_the_proof_of_a_missing_daily_has_got(settings: Any) -> None:
    from games.services.deals import deal_create
    from games.verification_progress import note_progress

    settings.DAILY_VARIANTS = ["astrocyte"]

    def today() -> dict[str, Any]:
        response = APIClient().get("/api/v1/challenges/today/")
        assert response.status_code == 200
        return dict(response.json())

    (entry,) = today()["preparing"]
    assert entry == {"variant": "astrocyte", "phase": "waiting", "seconds": None, "positions": None}
    deal = deal_create(variant="astrocyte")
    assert today()["preparing"][0]["phase"] == "queued"
    assert "being proven" in today()["message"]
    started = timezone.now() - dt.timedelta(seconds=3)
    Deal.objects.filter(pk=deal.pk).update(status=Deal.Status.VERIFYING, verify_started_at=started)
    note_progress(deal.pk, proven=True, positions=12_345)
    body = today()
    (entry,) = body["preparing"]
    assert entry["phase"] == "shortening" and entry["positions"] == 12_345
    assert 3 <= entry["seconds"] < 60
    text = json.dumps(body)
    assert deal.seed not in text and deal.nonce not in text and deal.commitment not in text
    Deal.objects.filter(pk=deal.pk).update(status=Deal.Status.VERIFIED)
    DailyChallenge.objects.create(date=timezone.now().date(), variant="astrocyte", deal=deal)
    body = today()
    assert body["preparing"] == [] and body["message"] is None
    assert [c["variant"] for c in body["challenges"]] == ["astrocyte"]


def test_actions_are_rate_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "actions", "3/min")
    client = client_for(make_player())
    started = client.post(f"/api/v1/challenges/{todays_challenge().pk}/start/")
    assert started.status_code == 201
    attempt = Attempt.objects.get(pk=started.json()["id"])
    solution = solution_of(attempt.deal)
    codes = [post_actions(client, attempt.pk, i, solution[i : i + 1]).status_code for i in range(4)]
    assert codes == [200, 200, 429, 429]  # the start was the scope's first request
    response = post_actions(client, attempt.pk, 3, solution[3:4])
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["details"]["wait"] > 0
    assert "Retry-After" in response.headers
