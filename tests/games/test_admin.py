"""The operators' admin: deals, their proofs, the schedule; staff only, every action logged."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Attempt, DailyChallenge, Deal
from games.services.deals import deal_create, deal_schedule, deal_verify
from tests.games.conftest import QUICK_SEED, QUICK_SEEDS, QUICK_VARIANT

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    user = User.objects.create_superuser("operator", "op@example.com", "pw-operator-1")
    client.force_login(user)
    return client


@pytest.fixture
def verified() -> Deal:
    return deal_verify(deal_id=deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED).pk, seconds=20)


def run_action(client: Client, action: str, deal: Deal, **extra: str) -> object:
    return client.post(
        reverse("admin:games_deal_changelist"),
        {"action": action, "_selected_action": [str(deal.pk)], **extra},
        follow=True,
    )


def test_only_staff_reach_the_deal_pages(client: Client, verified: Deal) -> None:
    urls = [
        reverse("admin:games_deal_changelist"),
        reverse("admin:games_deal_change", args=[verified.pk]),
        reverse("admin:games_deal_solution", args=[verified.pk]),
        reverse("admin:games_dailychallenge_changelist"),
    ]
    for url in urls:
        assert client.get(url).status_code == 302  # to the log-in page
    User.objects.create_user("player", password="pw-player-1")
    client.login(username="player", password="pw-player-1")
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_deal_list_shows_status_par_difficulty_and_effort(
    staff: Client, verified: Deal
) -> None:
    pending = deal_create(variant="spider2")
    page = staff.get(reverse("admin:games_deal_changelist")).content.decode()
    assert "verified" in page and "pending" in page
    assert str(verified.par) in page and verified.difficulty_label in page
    assert f"{verified.solver_nodes:,} nodes" in page
    filtered = staff.get(
        reverse("admin:games_deal_changelist") + "?status__exact=pending"
    ).content.decode()
    assert f'href="/admin/games/deal/{pending.pk}/change/' in filtered
    assert f'href="/admin/games/deal/{verified.pk}/change/' not in filtered
    found = staff.get(reverse("admin:games_deal_changelist") + f"?q={pending.pk}").content.decode()
    assert f'href="/admin/games/deal/{pending.pk}/change/' in found
    assert f'href="/admin/games/deal/{verified.pk}/change/' not in found


def test_the_deal_list_is_paginated_25_a_page(staff: Client) -> None:
    for _ in range(30):
        deal_create(variant="spider2")
    page = staff.get(reverse("admin:games_deal_changelist")).content.decode()
    assert page.count('class="action-select"') == 25
    assert "?p=2" in page  # the paginator's second page
    second = staff.get(reverse("admin:games_deal_changelist") + "?p=2").content.decode()
    assert second.count('class="action-select"') == 5


def test_the_seed_is_not_on_the_deal_page(staff: Client, verified: Deal) -> None:
    page = staff.get(reverse("admin:games_deal_change", args=[verified.pk])).content.decode()
    assert verified.commitment in page
    assert verified.nonce not in page


def test_verify_now_verifies_and_is_logged(staff: Client, tasks_in_process: None) -> None:
    deal = deal_create(variant="spider1", seed=QUICK_SEEDS["spider1"])
    run_action(staff, "verify_now", deal)
    deal.refresh_from_db()
    assert deal.status == Deal.Status.VERIFIED
    entry = LogEntry.objects.get(object_id=str(deal.pk))
    assert entry.user_id == User.objects.get(username="operator").pk
    assert "Verification queued" in entry.get_change_message()


def test_reverify_runs_the_solver_again(
    staff: Client, verified: Deal, tasks_in_process: None
) -> None:
    run_action(staff, "reverify", verified)
    verified.refresh_from_db()
    assert verified.verify_runs == 2 and verified.status == Deal.Status.VERIFIED
    assert LogEntry.objects.filter(object_id=str(verified.pk)).exists()


def test_in_the_embedded_run_a_reverification_is_queued_not_run_in_the_request(
    staff: Client, verified: Deal, settings: object
) -> None:
    """The admin's page answers at once; the embedded run's verifier does the solving."""
    import threading

    from games.background_verifier import BackgroundVerifier

    settings.CELERY_TASK_ALWAYS_EAGER = True  # type: ignore[attr-defined]  # the embedded run
    asked: list[tuple[int, bool]] = []
    release = threading.Event()

    def verify(deal_id: int, force: bool = False) -> object:
        asked.append((deal_id, force))
        release.wait(30)
        return "verified"

    verifier = BackgroundVerifier(verify=verify)
    verifier.start()
    try:
        page = run_action(staff, "reverify", verified)
        assert "1 re-verification(s) queued" in page.content.decode()  # type: ignore[attr-defined]
    finally:
        release.set()
        assert verifier.wait_until_idle(30)
        verifier.stop()
    # Solved on the verifier's thread, forced (a verified deal verified again), not in the
    # request (eager tasks would have run the real solver there, and asked nothing here).
    assert asked == [(verified.pk, True)]


def test_mark_for_a_date_asks_for_the_date_then_schedules(staff: Client, verified: Deal) -> None:
    form = run_action(staff, "mark_for_date", verified)
    assert b'name="date"' in form.content  # type: ignore[attr-defined]
    day = timezone.now().date() + dt.timedelta(days=2)
    run_action(staff, "mark_for_date", verified, date=day.isoformat(), apply="Schedule")
    assert DailyChallenge.objects.get(date=day, variant=QUICK_VARIANT).deal_id == verified.pk
    assert (
        f"Scheduled as the {QUICK_VARIANT} daily"
        in LogEntry.objects.get(object_id=str(verified.pk)).get_change_message()
    )


def test_mark_for_a_date_refuses_an_unverified_deal(staff: Client) -> None:
    pending = deal_create(variant="astrocyte")
    day = (timezone.now().date() + dt.timedelta(days=2)).isoformat()
    page = run_action(staff, "mark_for_date", pending, date=day, apply="Schedule")
    assert "only verified deals can be scheduled" in page.content.decode()  # type: ignore[attr-defined]
    assert not DailyChallenge.objects.exists()


@pytest.mark.parametrize("how", ["practice pool", "served in practice"])
def test_mark_for_a_date_refuses_a_practice_deal_and_changes_nothing(
    staff: Client, how: str
) -> None:
    pool = Deal.Pool.PRACTICE if how == "practice pool" else Deal.Pool.DAILY
    deal = deal_verify(
        deal_id=deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED, pool=pool).pk, seconds=20
    )
    assert deal.status == Deal.Status.VERIFIED
    if how == "served in practice":
        player = User.objects.create_user("practiser", password="pw-practiser-1")
        Attempt.objects.create(
            player=player, deal=deal, kind=Attempt.Kind.PRACTICE, started_at=timezone.now()
        )
    day = (timezone.now().date() + dt.timedelta(days=2)).isoformat()
    page = run_action(staff, "mark_for_date", deal, date=day, apply="Schedule")
    assert (
        "is a practice deal: practice players may have seen all its cards, "
        "so it can never be a daily"
    ) in page.content.decode()  # type: ignore[attr-defined]
    assert not DailyChallenge.objects.exists()
    assert not LogEntry.objects.filter(object_id=str(deal.pk)).exists()


def test_retire(staff: Client, verified: Deal) -> None:
    run_action(staff, "retire", verified)
    verified.refresh_from_db()
    assert verified.retired
    assert "Retired" in LogEntry.objects.get(object_id=str(verified.pk)).get_change_message()


def test_the_solution_viewer_steps_through_positions(staff: Client, verified: Deal) -> None:
    url = reverse("admin:games_deal_solution", args=[verified.pk])
    start = staff.get(url).content.decode()
    assert "Step 0 of" in start and "the deal" in start
    first_move = (verified.solution or ["?"])[0]
    step1 = staff.get(url + "?step=1").content.decode()
    assert f"after <strong>{first_move}</strong>" in step1
    last = staff.get(url + f"?step={len(verified.solution or [])}").content.decode()
    assert f"Step {len(verified.solution or [])} of {len(verified.solution or [])}" in last
    # the winning position: the tableau is empty, every foundation full
    assert last.count("(13)") == 8
    assert staff.get(url + "?step=oops").status_code == 200


def test_the_schedule_counts_missing_days_only_within_the_days_kept_ahead(
    staff: Client, verified: Deal, settings: object
) -> None:
    settings.DAILY_VARIANTS = [QUICK_VARIANT]  # type: ignore[attr-defined]
    settings.DAILY_DAYS_AHEAD = 2  # type: ignore[attr-defined]
    deal_schedule(deal=verified, date=timezone.now().date())
    page = staff.get(reverse("admin:games_dailychallenge_changelist")).content.decode()
    assert f"deal #{verified.pk}" in page
    # Today is filled; tomorrow and the day after are the pipeline's and missing; the
    # other eleven days of the fortnight are not due yet.
    assert "2 slots missing in the 3 days the pipeline keeps scheduled" in page
    assert page.count(">missing</td>") == 2
    assert page.count(">not yet due</td>") == 11


def test_the_admin_says_analyses_and_rounds_the_solvers_figures(
    staff: Client, verified: Deal
) -> None:
    Deal.objects.filter(pk=verified.pk).update(solver_seconds=6.9507450859999835)
    index = staff.get(reverse("admin:index")).content.decode()
    assert "Attempt analyses" in index and "analysiss" not in index
    page = staff.get(reverse("admin:games_deal_change", args=[verified.pk])).content.decode()
    assert "6.9507450859999835" not in page and "7.0 s" in page


def test_a_deal_proven_unwinnable_shows_its_proof_to_staff_only(
    client: Client, monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    """The real verification of a deal whose dealt position is a small lost one
    (tests/games/test_deal_verify.py): "proven unwinnable" with the positions searched and
    the proof's rules, unlike a deal whose proof ran out of its budget ("unknown")."""
    from games.services import deals
    from games.solver.complete import PROOF_RULES
    from tests.games.test_deal_verify import lost_deal

    proven = deal_verify(deal_id=lost_deal(monkeypatch, settings).pk)
    monkeypatch.setattr(deals, "proof_budget", lambda _result: 5)  # nodes
    unproven = deal_verify(deal_id=deal_create(variant="spider1").pk)
    assert (proven.status, unproven.status) == (Deal.Status.UNSOLVABLE, Deal.Status.UNKNOWN)
    change = reverse("admin:games_deal_change", args=[proven.pk])
    listing = reverse("admin:games_deal_changelist")

    for url in (change, listing):  # not signed in, then a player: the log-in page, nothing else
        assert client.get(url).status_code == 302
    User.objects.create_user("player", password="pw-player-1")
    client.login(username="player", password="pw-player-1")
    for url in (change, listing):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
        assert "proven unwinnable" not in response.content.decode()

    operator = User.objects.create_superuser("operator", "op@example.com", "pw-operator-1")
    client.force_login(operator)
    said = f"proven unwinnable ({proven.solver_nodes:,} positions searched)"
    rows = client.get(listing).content.decode()
    assert said in rows
    assert "unknown: budget ran out" in rows
    page = client.get(change).content.decode()
    assert said in page
    assert f"every one of the {proven.solver_nodes:,} classes of positions" in page
    for rule in PROOF_RULES:
        assert rule in page
    other = client.get(reverse("admin:games_deal_change", args=[unproven.pk])).content.decode()
    assert "proven unwinnable" not in other
    assert "ran out of its 5 positions" in other  # the last error says why
