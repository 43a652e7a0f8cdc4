"""Game analysis (issue 31): the service on real finished games, the API's answers."""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple

import pytest
from django.test import Client
from django.utils import timezone

from games import engine
from games.models import Attempt, AttemptAnalysis, Deal
from games.selectors import attempt_board
from games.services import analysis as analysis_service
from games.services.analysis import analysis_request, analysis_run, gallop_steps
from games.services.attempts import (
    attempt_push_actions,
    attempt_resign,
    attempt_start_practice,
    attempt_start_ranked,
)
from games.solver.decide import LOOK_NODES, NEAR_NODES, Decision, Verdict
from tests.factories import make_player, verified_deal
from tests.games.api_support import (
    client_for,
    past_challenge_of,
    solution_of,
    solved_deal,
    todays_challenge,
)
from tests.games.conftest import OTHER_QUICK_SEED
from tests.games.lost_play import KEPT, LOST_SEED, LOST_VARIANT, losing_log
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db

KEPT_SOLUTION = KEPT  # actions of the deal's solution before the play that goes wrong


@pytest.fixture(autouse=True)
def small_budget(settings: Any) -> None:
    """Nodes decide, the same on any machine (no setting in seconds takes part)."""
    settings.ANALYSIS_POSITION_NODES = 20_000
    settings.ANALYSIS_NODES = 1_000_000


def practice_game(won: bool) -> tuple[Any, Attempt]:
    """A finished practice game: won (the spider1 deal's stored line), or lost
    (tests/games/lost_play.py: Astrocyte deal 4 played wrong after its line's first actions)."""
    player = make_player()
    if won:
        solved_deal(pool="practice")
        attempt = attempt_start_practice(player=player)
        actions = solution_of(attempt.deal)
    else:
        verified_deal(LOST_VARIANT, LOST_SEED, pool="practice")
        attempt = attempt_start_practice(player=player, variant=LOST_VARIANT)
        actions = losing_log(attempt_board(attempt), solution_of(attempt.deal))
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=actions)
    attempt.refresh_from_db()
    if not attempt.is_over:
        attempt_resign(attempt_id=attempt.pk, player=player)
    attempt.refresh_from_db()
    return player, attempt


def analysed(attempt: Attempt, player: Any) -> AttemptAnalysis:
    analysis = analysis_request(attempt_id=attempt.pk, player=player)
    return analysis_run(analysis_id=analysis.pk)


def test_gallop_steps_go_back_from_the_end_to_the_deal() -> None:
    assert gallop_steps(10) == [10, 9, 7, 3, 0]
    assert gallop_steps(0) == [0]


def test_a_lost_game_is_lost_at_an_action_whose_alternative_wins() -> None:
    player, attempt = practice_game(won=False)
    analysis = analysed(attempt, player)
    assert analysis.status == "done"
    assert analysis.lost_at is not None, analysis.positions
    index = analysis.lost_at["index"]
    assert analysis.lost_at["action"] == attempt.log[index]
    assert index >= KEPT_SOLUTION  # the solution's positions are winnable
    by_step = {p["step"]: p for p in analysis.positions}
    assert by_step[index]["status"] == "solved"
    assert by_step[index + 1]["status"] != "solved"  # no win found after the action
    result = engine.replay_on(attempt_board(attempt, upto=index), analysis.alternative)
    assert result.error is None and result.board.is_won


def _given_up_while_winnable() -> tuple[Any, Attempt]:
    """Ten actions of the deal's stored line, then a hundred first legal moves (cards moved
    to and fro), then resigned."""
    solved_deal(pool="practice")
    player = make_player()
    attempt = attempt_start_practice(player=player)
    board = attempt_board(attempt)
    actions = solution_of(attempt.deal)[:KEPT_SOLUTION]
    for action in actions:
        board.push_text(action)
    for _ in range(100):
        move = board.legal_moves()[0]
        board.push(move)
        actions.append(str(move))
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=actions)
    attempt_resign(attempt_id=attempt.pk, player=player)
    attempt.refresh_from_db()
    return player, attempt


def test_a_game_given_up_while_winnable_is_found_still_winnable_at_its_end() -> None:
    """With no stored line to start from, the analysis walks from the last winnable
    position it found to the end, each position a move or two from a known win, and names
    no losing action."""
    player, attempt = _given_up_while_winnable()
    Deal.objects.filter(pk=attempt.deal_id).update(solution=None)
    analysis = analysed(attempt, player)
    assert analysis.lost_at is None and not attempt.won
    last = analysis.positions[-1]
    assert last["step"] == len(attempt.log) and last["status"] == "solved", analysis.positions
    walked = [p for p in analysis.positions if p["status"] == "solved" and p["nodes"] <= 4_000]
    assert len(walked) > 10  # most positions decided by the known lines, not by a search
    assert all(p["budget"] > 0 for p in walked)  # a look, not "spent"


def test_the_deals_stored_line_is_a_known_win_from_the_first_look() -> None:
    """The same game with the deal's stored solution: the end, a move or two from a position
    of that line, is winnable at the first look, with no search, and nothing else is
    analysed."""
    player, attempt = _given_up_while_winnable()
    analysis = analysed(attempt, player)
    assert analysis.lost_at is None
    [end] = analysis.positions
    assert end["step"] == len(attempt.log) and end["status"] == "solved"
    assert end["nodes"] <= NEAR_NODES and end["moves_to_win"]


def test_a_won_game_says_what_the_shortest_line_saved() -> None:
    player, attempt = practice_game(won=True)
    assert attempt.won
    analysis = analysed(attempt, player)
    by_step = {p["step"]: p for p in analysis.positions}
    assert by_step[len(attempt.log)]["moves_to_win"] == 0
    shortest = by_step[0]["moves_to_win"]
    assert analysis.saved is not None
    where = analysis.saved.pop("where")
    assert analysis.saved == {
        "played": len(attempt.log),
        "shortest": shortest,
        "actions": max(0, len(attempt.log) - shortest),
    }
    # each stretch: the actions played beyond the shortest line found, made between its ends
    beyond = {
        p["step"]: len(attempt.log) - p["step"] - p["moves_to_win"]
        for p in analysis.positions
        if p["moves_to_win"] is not None
    }
    for stretch in where:
        made = beyond[stretch["from_step"]] - beyond[stretch["to_step"]]
        assert stretch["actions"] == made > 0
    assert [s["actions"] for s in where] == sorted((s["actions"] for s in where), reverse=True)
    assert analysis.lost_at is None
    answer = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/analysis/").json()
    assert answer["lost_at"] is None and answer["lost_by"] is None


def test_asked_twice_it_is_computed_once() -> None:
    player, attempt = practice_game(won=True)
    first = analysed(attempt, player)
    again = analysis_request(attempt_id=attempt.pk, player=player)
    assert again.pk == first.pk and again.status == "done"
    assert analysis_run(analysis_id=first.pk).finished_at == first.finished_at
    assert AttemptAnalysis.objects.count() == 1


def test_a_failed_or_stuck_analysis_asked_again_runs_again_and_a_fresh_one_does_not() -> None:
    player, attempt = practice_game(won=True)
    first = analysis_request(attempt_id=attempt.pk, player=player)
    AttemptAnalysis.objects.filter(pk=first.pk).update(status="running")
    assert analysis_request(attempt_id=attempt.pk, player=player).status == "running"  # fresh
    long_ago = timezone.now() - dt.timedelta(hours=1)
    AttemptAnalysis.objects.filter(pk=first.pk).update(created_at=long_ago)  # its worker died
    again = analysis_request(attempt_id=attempt.pk, player=player)
    assert again.status == "pending" and again.created_at > long_ago
    assert analysis_run(analysis_id=again.pk).status == "done"
    AttemptAnalysis.objects.filter(pk=first.pk).update(status="failed")
    assert analysis_request(attempt_id=attempt.pk, player=player).status == "pending"
    assert analysis_run(analysis_id=first.pk).status == "done"
    assert AttemptAnalysis.objects.count() == 1


def test_no_budget_leaves_unknowns_and_no_crash(settings: Any) -> None:
    settings.ANALYSIS_NODES = 0
    player, attempt = practice_game(won=False)
    analysis = analysed(attempt, player)
    assert analysis.status == "done" and analysis.lost_at is None
    assert {p["status"] for p in analysis.positions} == {"unknown"}


def test_the_api_asks_then_reads(django_capture_on_commit_callbacks: Any) -> None:
    player, attempt = practice_game(won=True)
    client = client_for(player)
    url = f"/api/v1/attempts/{attempt.pk}/analysis/"
    assert client.get(url).json()["error"]["code"] == "no_analysis"
    with django_capture_on_commit_callbacks(execute=False) as queued:
        asked = client.post(url)
    assert asked.status_code == 202 and asked.json()["status"] == "pending"
    assert len(queued) == 1
    analysis_run(analysis_id=AttemptAnalysis.objects.get().pk)
    done = client.post(url)
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert client.get(url).json() == done.json()


def test_sealed_unknown_and_others_games_answer_as_an_unknown_id(
    django_capture_on_commit_callbacks: Any,
) -> None:
    challenge = todays_challenge(seed=OTHER_QUICK_SEED)
    owner = make_player()
    ranked, _ = attempt_start_ranked(player=owner, challenge_id=challenge.pk)
    attempt_resign(attempt_id=ranked.pk, player=owner)
    _, practice = practice_game(won=True)
    stranger = make_player()
    unknown = client_for(owner).post("/api/v1/attempts/999999/analysis/")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answers = [
            client_for(owner).post(f"/api/v1/attempts/{ranked.pk}/analysis/"),
            client_for(stranger).post(f"/api/v1/attempts/{ranked.pk}/analysis/"),
            client_for(stranger).get(f"/api/v1/attempts/{ranked.pk}/analysis/"),
            client_for(stranger).post(f"/api/v1/attempts/{practice.pk}/analysis/"),
        ]
    for answer in answers:
        assert (answer.status_code, answer.json()) == (404, unknown.json())
    assert not queued and not AttemptAnalysis.objects.exists()
    past_challenge_of(challenge)
    after = client_for(stranger).post(f"/api/v1/attempts/{ranked.pk}/analysis/")
    assert after.status_code == 202


def test_an_attempt_not_over_is_refused(settings: Any) -> None:
    player = make_player()
    solved_deal(pool="practice")
    attempt = attempt_start_practice(player=player)
    answer = Client()
    answer.force_login(player)
    response = answer.post(f"/api/v1/attempts/{attempt.pk}/analysis/")
    assert response.status_code == 404  # an open practice game's cards are not public
    assert not AttemptAnalysis.objects.exists()


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_with_workers_the_analysis_runs_on_a_worker(celery_worker: Any) -> None:
    player, attempt = practice_game(won=True)
    client = client_for(player)
    url = f"/api/v1/attempts/{attempt.pk}/analysis/"
    assert client.post(url).status_code in (200, 202)
    answer = wait_for(
        lambda: (found := client.get(url).json())["status"] == "done" and found,
        90,
        "the worker's analysis",
    )
    assert answer["saved"]["played"] == len(attempt.log)
    assert client.post(url).status_code == 200  # asked again: the stored answer
    assert AttemptAnalysis.objects.count() == 1


class Asked(NamedTuple):
    step: int
    nodes: int  # the budget it was asked with
    proof_first: bool
    one_phase: bool
    spent: int  # the nodes its decision searched


def _verdicts(
    monkeypatch: pytest.MonkeyPatch,
    winnable_upto: int | None,
    proof_first: set[int] | None = None,
    needs: dict[int, int] | None = None,
    log: list[Asked] | None = None,
) -> list[int]:
    """``decide`` replaced: the position after ``k`` actions is winnable (a line of one
    placeholder action) for ``k <= winnable_upto``, proven lost otherwise, and unknown
    (its whole budget spent) when asked with fewer nodes than ``needs[k]``; the steps asked
    (and, in ``proof_first``, those asked to try the proof first; in ``log``, every ask)."""
    asked: list[int] = []
    needs = needs or {}

    def decide(
        board: engine.Board,
        max_nodes: int,
        lost: set[bytes] | None = None,
        first: bool = False,
        known: object = None,
        one_phase: bool = False,
    ) -> Decision:
        step = len(board)  # attempt_board replays the log: one record an action
        asked.append(step)
        assert lost is not None  # one set for the whole game
        if first and proof_first is not None:
            proof_first.add(step)
        if max_nodes < needs.get(step, 0):
            decision = Decision(Verdict.UNKNOWN, [], max_nodes)
        elif winnable_upto is not None and step <= winnable_upto:
            decision = Decision(Verdict.WINNABLE, ["deal"], 10)
        else:
            decision = Decision(Verdict.UNWINNABLE, [], 10, ("transpositions",))
        if log is not None:
            log.append(Asked(step, max_nodes, first, one_phase, decision.nodes))
        return decision

    monkeypatch.setattr(analysis_service, "decide", decide)
    return asked


def test_the_losing_action_is_proven_when_the_position_after_it_is_proven_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player, attempt = practice_game(won=False)
    proof_first: set[int] = set()
    asked = _verdicts(monkeypatch, winnable_upto=KEPT_SOLUTION + 3, proof_first=proof_first)
    analysis = analysed(attempt, player)
    index = KEPT_SOLUTION + 3
    # the last position first, then each earlier one proof first: a later one is proven lost
    assert asked[0] == len(attempt.log) and len(attempt.log) not in proof_first
    assert proof_first == set(asked[1:])
    assert analysis.lost_at == {"index": index, "action": attempt.log[index], "proven": True}
    answer = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/analysis/").json()
    assert answer["lost_at"] == analysis.lost_at  # "proven" is served, for the page's words
    by_step = {p["step"]: p["status"] for p in analysis.positions}
    assert by_step[index] == "solved" and by_step[index + 1] == "unsolvable"
    # the earliest action proven losing is the losing action itself
    assert answer["lost_by"] == {"index": index, "action": attempt.log[index], "nodes": 10}
    # each position decided once: by a search, or by a first look along the deal's line
    looked = {p["step"] for p in analysis.positions if p["budget"] == LOOK_NODES}
    assert sorted(asked) == sorted(set(by_step) - looked)


def test_a_position_neither_won_nor_proven_by_any_budget_leaves_the_loss_unproven(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walking back from the first position proven lost stops at one the budget could not
    decide; rounds with four times the budget a position ask again, each only its
    frontier's phase, while the job's nodes allow a bigger budget: the losing action is then
    only "as far as the analysis could tell"."""
    player, attempt = practice_game(won=False)
    index = KEPT_SOLUTION + 3
    log: list[Asked] = []
    never = dict.fromkeys(range(index + 1, index + 4), 10**12)
    _verdicts(monkeypatch, winnable_upto=index, needs=never, log=log)
    analysis = analysed(attempt, player)
    assert analysis.lost_at == {"index": index, "action": attempt.log[index], "proven": False}
    by_step = {p["step"]: p for p in analysis.positions}
    assert by_step[index]["status"] == "solved" and by_step[index + 1]["status"] == "unknown"
    assert by_step[index + 4]["status"] == "unsolvable"  # walked back to it
    # served: a proven bound on where the game was lost, three actions after the unproven one
    answer = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/analysis/").json()
    assert answer["lost_at"]["proven"] is False
    assert answer["lost_by"] == {
        "index": index + 3,
        "action": attempt.log[index + 3],
        "nodes": by_step[index + 4]["nodes"],
    }
    first_round = [a for a in log if a.nodes == 20_000]
    assert [a.step for a in first_round].count(index + 1) == 1
    later = [a for a in log if a.nodes != 20_000]
    assert later and all(a.one_phase for a in later) and not any(a.one_phase for a in first_round)
    # each frontier asked again with 80,000 then 320,000 nodes; the 160,000 or so left after
    # that would not be more than a position already had, so no round uses them
    assert [a.nodes for a in later if a.step == index + 3] == [80_000, 320_000]
    assert [a.nodes for a in later if a.step == index + 1] == [80_000, 320_000]
    assert all(a.proof_first for a in later if a.step == index + 3)  # next to the proof
    assert not any(a.proof_first for a in later if a.step == index + 1)  # next to the win
    assert 640_000 < sum(a.spent for a in log) <= 1_000_000  # within the job's budget


@pytest.mark.parametrize("winnable_upto", [KEPT_SOLUTION + 3, KEPT_SOLUTION + 5])
def test_a_later_round_with_more_nodes_decides_what_the_first_could_not(
    monkeypatch: pytest.MonkeyPatch, winnable_upto: int
) -> None:
    """The positions between the last win found and the first proof need four times the
    first round's budget: the second round decides them, from either side, and the losing
    action is proven (after ``winnable_upto`` actions, not at the first unknown)."""
    player, attempt = practice_game(won=False)
    gap = range(KEPT_SOLUTION + 4 - 3, KEPT_SOLUTION + 7)
    log: list[Asked] = []
    _verdicts(monkeypatch, winnable_upto=winnable_upto, needs=dict.fromkeys(gap, 80_000), log=log)
    analysis = analysed(attempt, player)
    assert analysis.lost_at == {
        "index": winnable_upto,
        "action": attempt.log[winnable_upto],
        "proven": True,
    }
    by_step = {p["step"]: p for p in analysis.positions}
    assert by_step[winnable_upto + 1]["status"] == "unsolvable"
    decided_later = [by_step[s] for s in (winnable_upto, winnable_upto + 1) if s in gap]
    assert decided_later and all(p["budget"] == 80_000 for p in decided_later)
    assert max(a.nodes for a in log) == 80_000  # no third round: it was decided


@pytest.mark.parametrize("job_nodes", range(275_000, 450_001, 25_000))
def test_a_later_rounds_bisection_ends_next_to_the_last_win_whatever_the_job_has_left(
    settings: Any, monkeypatch: pytest.MonkeyPatch, job_nodes: int
) -> None:
    """The first round ends next to a position that four times its budget wins; the second
    round wins the frontiers one after another, then bisects a stretch whose first
    positions also need four times the first budget and whose others no budget decides.
    With any of these job sizes the bisection ends next to the last win (the losing action
    "as far as the analysis could tell"): the round's budget goes to a position only when
    the first round's is kept for each other position it may still ask about, instead of
    spending it on the first and leaving the game undecided when the nodes run out
    half-way. With nodes enough for
    that, every position gets the round's budget, and the answer is the one that budget
    gives."""
    settings.ANALYSIS_NODES = job_nodes
    player, attempt = practice_game(won=False)
    later = KEPT_SOLUTION + 4  # the first round wins up to here
    needs = dict.fromkeys(range(later, later + 7), 80_000)  # the second round wins these
    needs |= dict.fromkeys(range(later + 7, 40), 10**12)  # then nothing decides these
    log: list[Asked] = []
    _verdicts(monkeypatch, winnable_upto=30, needs=needs, log=log)
    analysis = analysed(attempt, player)
    by_step = {p["step"]: p for p in analysis.positions}
    assert analysis.lost_at is not None and analysis.lost_at["proven"] is False
    index = analysis.lost_at["index"]
    assert by_step[index]["status"] == "solved" and by_step[index + 1]["status"] == "unknown"
    assert by_step[index]["budget"] == 80_000  # won by the second round
    if job_nodes >= 400_000:  # enough for each position to get the round's budget
        assert index == later + 6
    assert sum(a.spent for a in log) <= job_nodes


@pytest.mark.parametrize("job_nodes", range(160_000, 240_001, 20_000))
def test_the_walk_back_and_the_frontier_leave_the_bisection_its_nodes(
    settings: Any, monkeypatch: pytest.MonkeyPatch, job_nodes: int
) -> None:
    """The first round ends next to a position no search decides, but the line found just
    before it, followed, wins it and the next six at a first look. The second round walks
    forward along them, then spends four times the first budget on the far side (the walk
    back from the first proof) and on the nearest unknown position two actions on. Whatever
    the job has left, the first round's budget is kept for the one position between them,
    so the losing action is named next to the last win, not left undecided."""
    settings.ANALYSIS_NODES = job_nodes
    player, attempt = practice_game(won=False)
    first = KEPT_SOLUTION + 4  # the first position no search decides
    looked = range(first, first + 7)  # winnable at a first look once the one before is won
    _verdicts(monkeypatch, winnable_upto=30, needs=dict.fromkeys(range(first, 39), 10**12))

    def near_known_win(board: engine.Board, known: object, previous: object) -> Decision:
        if len(board) in looked:
            return Decision(Verdict.WINNABLE, ["deal"], 5)
        return Decision(Verdict.UNKNOWN, [], 5)

    monkeypatch.setattr(analysis_service, "near_known_win", near_known_win)
    analysis = analysed(attempt, player)
    by_step = {p["step"]: p for p in analysis.positions}
    assert analysis.lost_at == {
        "index": looked[-1],
        "action": attempt.log[looked[-1]],
        "proven": False,
    }
    assert by_step[looked[-1]]["budget"] == LOOK_NODES  # won at a first look
    assert by_step[looked[-1] + 1]["status"] == "unknown"
    assert by_step[looked[-1] + 1]["budget"] >= 20_000  # the first round's budget, at least


def test_a_game_whose_deal_is_proven_lost_was_never_winnable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player, attempt = practice_game(won=False)
    _verdicts(monkeypatch, winnable_upto=None)
    analysis = analysed(attempt, player)
    assert analysis.lost_at is None and analysis.alternative == []
    assert {p["status"] for p in analysis.positions} == {"unsolvable"}
    assert analysis.positions[0]["step"] == 0
    # the page's "never winnable (proven: N positions searched)": the proof's size, its budget
    assert analysis.positions[0]["nodes"] == 10 and analysis.positions[0]["budget"] == 20_000
    answer = client_for(player).get(f"/api/v1/attempts/{attempt.pk}/analysis/").json()
    assert answer["positions"][0] == {
        "step": 0,
        "status": "unsolvable",
        "moves_to_win": None,
        "nodes": 10,
        "budget": 20_000,
    }
    assert answer["lost_by"] is None  # never winnable: no action lost it


def test_the_node_budget_bounds_the_whole_analysis(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.ANALYSIS_NODES = 25  # two positions' worth of the stand-in's 10 nodes, and some
    player, attempt = practice_game(won=False)
    asked = _verdicts(monkeypatch, winnable_upto=KEPT_SOLUTION)
    analysis = analysed(attempt, player)
    assert len(asked) == 3  # the third gets the 5 nodes left; then none
    statuses = [p["status"] for p in sorted(analysis.positions, key=lambda p: -p["step"])]
    assert statuses[:3] == ["unsolvable"] * 3
    assert set(statuses[3:]) == {"unknown"}
    budgets = [p["budget"] for p in sorted(analysis.positions, key=lambda p: -p["step"])]
    assert budgets[:3] == [25, 15, 5] and set(budgets[3:]) == {0}  # the page says it ran out


def test_the_same_game_gets_the_same_analysis_again(settings: Any) -> None:
    """Budgets in nodes: a second run (a failed one asked again) finds exactly the same."""
    settings.ANALYSIS_POSITION_NODES = 5_000
    player, attempt = practice_game(won=False)
    first = analysed(attempt, player)
    AttemptAnalysis.objects.filter(pk=first.pk).update(status="failed")
    again = analysed(attempt, player)
    assert again.pk == first.pk and again.status == "done"
    assert (again.positions, again.lost_at, again.alternative) == (
        first.positions,
        first.lost_at,
        first.alternative,
    )
