"""Verifying a deal: the solver's log is the proof, checked by the engine; safe to run twice."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from games import engine
from games.models import Deal
from games.services import deals
from games.services.deals import deal_create, deal_verdict, deal_verify, progress_logger
from games.solver.complete import PROOF_RULES
from games.solver.decide import prove_lost
from tests.games.conftest import QUICK_SEED, QUICK_SEEDS, QUICK_VARIANT

pytestmark = pytest.mark.django_db


def test_a_new_deal_is_pending_with_a_public_commitment_to_its_secret_seed() -> None:
    deal = deal_create(variant="astrocyte")
    assert deal.status == Deal.Status.PENDING
    assert 0 <= deal.seed_int < 2**64
    expected = hashlib.sha256(f"astrocyte:{deal.seed_int}:{deal.nonce}".encode()).hexdigest()
    assert deal.commitment == expected
    assert deal.rules_version == engine.RULES_VERSION


def test_two_new_deals_have_different_seeds() -> None:
    assert deal_create(variant="astrocyte").seed != deal_create(variant="astrocyte").seed


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        deal_create(variant="klondike")
    assert not Deal.objects.exists()


@pytest.mark.parametrize("variant", ["astrocyte", "spider1", "spider2"])
def test_verified_deal_stores_a_solution_the_engine_replays_to_a_win(
    variant: str, quick_solver: None
) -> None:
    deal = deal_create(variant=variant, seed=QUICK_SEEDS[variant])
    deal = deal_verify(deal_id=deal.pk)
    assert deal.status == Deal.Status.VERIFIED, deal.last_error
    result = engine.replay(variant, deal.seed_int, deal.solution or [])
    assert result.ok and result.won
    assert deal.par == len(deal.solution or [])
    assert deal.difficulty_label in ("easy", "medium", "hard")
    assert deal.difficulty is not None
    assert deal.solver_nodes and deal.solver_nodes > 0
    assert deal.verified_at is not None and deal.lease_until is None
    assert deal.verify_runs == 1


def test_verifying_twice_changes_nothing(quick_solver: None) -> None:
    deal = deal_verify(deal_id=deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED).pk)
    before = Deal.objects.values().get(pk=deal.pk)
    again = deal_verify(deal_id=deal.pk)
    assert again.status == Deal.Status.VERIFIED
    assert Deal.objects.values().get(pk=deal.pk) == before


def test_reverify_runs_the_solver_again(quick_solver: None) -> None:
    deal = deal_verify(deal_id=deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED).pk)
    again = deal_verify(deal_id=deal.pk, force=True)
    assert again.status == Deal.Status.VERIFIED
    assert again.verify_runs == 2


def test_a_deal_being_verified_elsewhere_is_left_alone() -> None:
    deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED)
    lease = timezone.now() + dt.timedelta(minutes=5)
    Deal.objects.filter(pk=deal.pk).update(status=Deal.Status.VERIFYING, lease_until=lease)
    assert deal_verify(deal_id=deal.pk).status == Deal.Status.VERIFYING
    assert Deal.objects.get(pk=deal.pk).verify_runs == 0


def test_a_deal_whose_verifier_died_is_taken_over_after_its_lease(quick_solver: None) -> None:
    deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED)
    expired = timezone.now() - dt.timedelta(seconds=1)
    Deal.objects.filter(pk=deal.pk).update(
        status=Deal.Status.VERIFYING, lease_until=expired, verify_runs=1
    )
    deal = deal_verify(deal_id=deal.pk)
    assert deal.status == Deal.Status.VERIFIED
    assert deal.verify_runs == 2


def test_a_time_limit_leaves_the_deal_unknown_not_stuck(
    search_clock: Callable[[float], Any],
) -> None:
    # The solver's clock moves a millisecond a read (tests/conftest.py): its half second is
    # a number of the search's checks, too few for this deal on any machine.
    search_clock(0.001)
    deal = deal_create(variant="spider4", seed=12)
    deal = deal_verify(deal_id=deal.pk, seconds=0.5)
    assert deal.status == Deal.Status.UNKNOWN
    assert deal.lease_until is None and deal.solution is None
    assert deal.solver_seconds is not None and deal.solver_seconds < 1.5


@pytest.mark.parametrize("niceness", [0, 5], ids=["in this process", "in a niced child"])
def test_a_position_limit_leaves_the_deal_unknown_with_time_to_spare(
    niceness: int, settings: Any
) -> None:
    # Ten minutes on the clock: only SOLVER_NODES can stop this search, on any machine.
    settings.SOLVER_NICENESS = niceness
    settings.SOLVER_SECONDS = 600.0
    settings.SOLVER_NODES = 200
    deal = deal_verify(deal_id=deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED).pk)
    assert deal.status == Deal.Status.UNKNOWN and deal.solution is None
    assert deal.solver_nodes is not None and 200 <= deal.solver_nodes < 400
    assert deal.last_error.startswith("not proven: the search stopped at its node limit")
    assert deal_verdict(deal) == "unknown: budget ran out"
    # The same deal without the bound is proven: the limit made it unknown, not the deal.
    deal = deal_verify(deal_id=deal.pk, force=True, nodes=0)
    assert deal.status == Deal.Status.VERIFIED and deal.last_error == ""
    assert deal.solver_nodes is not None and deal.solver_nodes > 400


def test_retired_deals_are_not_verified() -> None:
    deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_SEED)
    Deal.objects.filter(pk=deal.pk).update(retired=True)
    assert deal_verify(deal_id=deal.pk).status == Deal.Status.PENDING


def test_no_seed_appears_in_the_log(caplog: pytest.LogCaptureFixture, quick_solver: None) -> None:
    caplog.set_level(logging.DEBUG)
    deal = deal_create(variant="astrocyte")
    deal_verify(deal_id=deal.pk, seconds=2)
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert f"deal {deal.pk}" in text
    assert str(deal.seed_int) not in text
    assert deal.nonce not in text


def test_the_log_shows_the_par_being_shortened_after_the_proof(
    caplog: pytest.LogCaptureFixture, settings: pytest.FixtureRequest, quick_solver: None
) -> None:
    # an operator watching a worker sees the improve phase move on, not a silent minute
    settings.SOLVER_IMPROVE_NODES = 120_000  # type: ignore[attr-defined]
    caplog.set_level(logging.INFO)
    deal = deal_create(variant="spider4", seed=QUICK_SEEDS["spider4"])
    deal = deal_verify(deal_id=deal.pk, progress=progress_logger(deal.pk))
    assert deal.status == Deal.Status.VERIFIED
    lines = [r.getMessage() for r in caplog.records]
    assert sum(line.startswith(f"deal {deal.pk}: proven winnable") for line in lines) == 1
    bests = [int(m[1]) for line in lines if (m := re.search(r"line (?:of )?(\d+) moves", line))]
    assert bests == sorted(bests, reverse=True) and bests[-1] >= (deal.par or 0)
    # the deal's nonce stays out of the new lines too (its seed, 6, is too short to look
    # for: test_no_seed_appears_in_the_log checks a random one)
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert deal.nonce not in text


# --- the improve budget, and the par a day keeps ------------------------------------------


def test_a_candidate_for_a_day_players_wait_for_gets_the_opening_budget(settings: object) -> None:
    from games.models import DailyChallenge
    from games.services.deals import improve_budget

    settings.SOLVER_IMPROVE_NODES = 2_000_000  # type: ignore[attr-defined]
    settings.SOLVER_OPENING_IMPROVE_NODES = 100_000  # type: ignore[attr-defined]
    candidate = deal_create(variant="astrocyte")
    assert improve_budget(candidate) == 100_000  # today has no Astrocyte daily
    assert improve_budget(deal_create(variant="astrocyte", pool=Deal.Pool.PRACTICE)) == 2_000_000
    scheduled = deal_create(variant="astrocyte")
    DailyChallenge.objects.create(date=timezone.now().date(), variant="astrocyte", deal=scheduled)
    assert improve_budget(candidate) == 2_000_000  # today is open: the next ones run full
    assert improve_budget(deal_create(variant="spider1")) == 100_000  # another variant waits


def test_the_stored_budget_finds_the_stored_line_again(
    settings: object, quick_solver: None
) -> None:
    from games.solver import solve

    settings.SOLVER_IMPROVE_NODES = 30_000  # type: ignore[attr-defined]
    settings.SOLVER_OPENING_IMPROVE_NODES = 5_000  # type: ignore[attr-defined]
    deal = deal_verify(deal_id=deal_create(variant="spider2", seed=3).pk)
    assert deal.solver_improve_nodes == 5_000  # proven while today had no daily
    again = solve(("spider2", 3), seconds=20, improve_nodes=deal.solver_improve_nodes)
    assert list(again.moves) == deal.solution and again.par == deal.par


@pytest.mark.parametrize(("days_ahead", "kept"), [(0, True), (1, False)])
def test_a_reverified_daily_keeps_its_par_once_its_day_has_begun(
    days_ahead: int, kept: bool, settings: object, quick_solver: None
) -> None:
    from games.models import DailyChallenge

    settings.SOLVER_IMPROVE_NODES = 0  # type: ignore[attr-defined]
    deal = deal_verify(deal_id=deal_create(variant="spider4", seed=QUICK_SEEDS["spider4"]).pk)
    first = (deal.par, deal.solution, deal.solver_improve_nodes)
    date = timezone.now().date() + dt.timedelta(days=days_ahead)
    DailyChallenge.objects.create(date=date, variant="spider4", deal=deal)
    settings.SOLVER_IMPROVE_NODES = 120_000  # type: ignore[attr-defined]  # another line
    settings.SOLVER_OPENING_IMPROVE_NODES = 120_000  # type: ignore[attr-defined]
    again = deal_verify(deal_id=deal.pk, force=True)
    assert again.status == Deal.Status.VERIFIED and again.verify_runs == 2
    if kept:
        assert (again.par, again.solution, again.solver_improve_nodes) == first
    else:
        # a day not begun takes the new line (another budget: another par, here)
        assert (again.par, again.solution) != first[:2]
        assert again.par == len(again.solution or [])
        assert again.solver_improve_nodes == 120_000


def test_the_progress_log_says_proven_once_and_otherwise_at_most_every_5_s(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.services import deals
    from games.solver import Progress

    clock = [1000.0]
    monkeypatch.setattr(deals.time, "monotonic", lambda: clock[0])
    report = progress_logger(41)
    with caplog.at_level(logging.INFO, logger="games.services.deals"):
        for step in range(40):  # the solver reports about every 0.6 s
            clock[0] += 0.6
            par = None if step < 20 else 150 - step
            report(
                Progress(
                    nodes=50_000 * step, seconds=0.6 * step, open_nodes=1, best_home=0, par=par
                )
            )
    lines = [r.getMessage() for r in caplog.records]
    assert sum("proven winnable" in line for line in lines) == 1
    assert len(lines) <= 1 + (40 * 0.6) / 5 + 1
    assert all(line.startswith("deal 41: ") for line in lines)


# A small hand-built lost position (tests/solver/small_positions.py; the brute force of
# tests/solver/test_complete.py confirms it lost): no whole deal is provably lost within a
# test's budget, so the verified deal's dealt position is this one. Everything else is the
# real verification: the solver, the complete search, the record.
LOST = ("spider1", 10, {"pieces": 3, "junk": 16})


def lost_deal(monkeypatch: pytest.MonkeyPatch, settings: object) -> Deal:
    from tests.solver.small_positions import small_position

    variant, seed, shape = LOST
    settings.SOLVER_NICENESS = 0  # type: ignore[attr-defined]  # in this process: the stand-in reaches it
    deal = deal_create(variant=variant)
    monkeypatch.setattr(deals, "_deal_board", lambda _deal: small_position(variant, seed, **shape))
    return deal


def test_a_deal_the_solver_exhausts_is_proven_unwinnable_by_the_complete_search(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    from tests.solver.small_positions import small_position

    deal = deal_verify(deal_id=lost_deal(monkeypatch, settings).pk)
    variant, seed, shape = LOST
    proof = prove_lost(small_position(variant, seed, **shape), 10_000)
    assert proof.unwinnable and proof.rules == PROOF_RULES
    assert deal.status == Deal.Status.UNSOLVABLE and deal.last_error == ""
    assert deal.solver_nodes == proof.nodes  # the proof's size: the classes it expanded
    assert deal.solution is None and deal.par is None and deal.verified_at is None
    assert deal_verdict(deal) == f"proven unwinnable ({proof.nodes:,} positions searched)"


def test_a_proof_whose_budget_runs_out_leaves_the_deal_unknown(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    deal = lost_deal(monkeypatch, settings)
    monkeypatch.setattr(deals, "proof_budget", lambda _result: 5)  # nodes
    deal = deal_verify(deal_id=deal.pk)
    assert deal.status == Deal.Status.UNKNOWN
    assert "ran out of its 5 positions" in deal.last_error
    assert deal_verdict(deal) == "unknown: budget ran out"
