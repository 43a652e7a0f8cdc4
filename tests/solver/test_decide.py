"""``decide`` and ``python -m games.solver decide``: verdicts, their JSON, the usage errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from games.engine import Board, replay, replay_on
from games.solver.complete import PROOF_RULES
from games.solver.decide import (
    NEAR_NODES,
    Decision,
    KnownWins,
    Verdict,
    decide,
    near_known_win,
)
from games.solver.decide_cli import main
from tests.solver.small_positions import position_where_a_deal_waits, small_position


def test_a_winnable_deal_comes_with_a_line_the_engine_replays_to_a_win() -> None:
    decision = decide(Board.deal("spider1", 2), 50_000)
    assert decision.verdict == Verdict.WINNABLE and decision.line
    result = replay("spider1", 2, decision.line)
    assert result.ok and result.won


def test_a_deal_waiting_for_an_empty_column_is_decided_within_an_analysis_budget() -> None:
    # how a player often leaves Spider 1 suit: all face up, a deal left, columns emptied
    board = position_where_a_deal_waits("spider1")
    decision = decide(board, 50_000)  # ANALYSIS_POSITION_NODES's default
    assert decision.verdict == Verdict.WINNABLE
    assert replay_on(board.copy(), decision.line).won


def test_a_lost_position_is_proven_with_its_rules() -> None:
    board = small_position("spider2", 41, pieces=3, junk=16)
    decision = decide(board, 50_000)
    assert decision.verdict == Verdict.UNWINNABLE
    assert decision.rules == PROOF_RULES and decision.nodes > 0
    assert decision.as_dict() == {
        "verdict": "unwinnable",
        "nodes": decision.nodes,
        "rules": list(PROOF_RULES),
    }


def test_a_positions_proof_serves_the_position_before_it() -> None:
    """As the analysis of a lost game decides it, latest position first, sharing ``lost``:
    the earlier position is proven with the proof search first and the heuristic skipped,
    in fewer positions than on its own; once known, at once."""
    before = small_position("spider1", 187, pieces=2, junk=14, deals=1)
    after = before.copy(keep_history=False)
    after.push(before.legal_moves()[0])
    lost: set[bytes] = set()
    assert decide(after, 50_000, lost).unwinnable
    alone = decide(before, 50_000)
    helped = decide(before, 50_000, lost, proof_first=True)
    assert alone.unwinnable and helped.unwinnable
    assert helped.nodes < alone.nodes
    again = decide(before, 50_000, lost)
    assert again.unwinnable and again.nodes == 0 and again.rules == PROOF_RULES


def test_proof_first_still_finds_a_win_the_proof_search_misses() -> None:
    """A winnable position decided proof first: when the complete search's budget runs out
    the heuristic search still wins it."""
    decision = decide(Board.deal("spider1", 2), 5_000, set(), proof_first=True)
    assert decision.winnable
    result = replay("spider1", 2, decision.line)
    assert result.ok and result.won


def test_a_position_a_move_from_a_known_win_is_winnable_without_a_search() -> None:
    """Known wins (every position along a line found): a position one move off the line is
    winnable at once, its line the move back then the known rest, which the engine wins."""
    deal = Board.deal("spider1", 2)
    known = KnownWins()
    first = decide(deal, 50_000, known=known)
    assert first.winnable and known.lines
    off = None
    midway = deal.copy(keep_history=False)
    for action in first.line:  # the first position along the line with a move off and back
        off = next((b for b in _one_move_off(midway, action) if _back_in_one(b, midway)), None)
        if off is not None:
            break
        midway.push_text(action)
    assert off is not None
    near = near_known_win(off, known)
    assert near.winnable and 0 < near.nodes <= NEAR_NODES
    result = replay_on(off.copy(keep_history=False), near.line)
    assert result.ok and result.won
    alone = near_known_win(off, KnownWins())
    assert alone.verdict == Verdict.UNKNOWN and alone.nodes == 0


def _one_move_off(board: Board, not_this: str) -> list[Board]:
    children = []
    for move in board.legal_moves():
        if str(move) not in (not_this, "deal"):
            child = board.copy(keep_history=False)
            child.push(move)
            children.append(child)
    return children


def _back_in_one(board: Board, target: Board) -> bool:
    """A move of ``board`` leads back to ``target`` (the move off was a card moved, nothing
    turned up)."""
    return any(child.position_key() == target.position_key() for child in _one_move_off(board, ""))


def test_a_win_only_the_complete_search_finds_is_shortened_and_checked() -> None:
    board = small_position("astrocyte", 18, pieces=3, junk=10)
    decision = decide(board, 100_000)
    assert decision.winnable
    result = replay_on(board.copy(keep_history=False), decision.line)
    assert result.ok and result.won


def test_the_budget_decides_unknown_the_same_on_any_machine() -> None:
    first = decide(Board.deal("astrocyte", 7), 500)
    again = decide(Board.deal("astrocyte", 7), 500)
    assert first == again == Decision(Verdict.UNKNOWN, [], first.nodes)
    assert first.nodes <= 2 * 500
    assert first.as_dict() == {"verdict": "unknown", "nodes": first.nodes}


def test_the_command_decides_the_position_after_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    deal_line = decide(Board.deal("spider1", 2), 50_000).line
    assert main(["spider1", "2", "--log", " ".join(deal_line[:5]), "--nodes", "50000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "winnable"
    result = replay("spider1", 2, deal_line[:5] + out["line"])
    assert result.ok and result.won


def test_unknown_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["astrocyte", "7", "--nodes", "300"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "unknown"


def test_runs_as_a_subcommand_of_the_solver_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games.solver", "decide", "spider1", "2", "--nodes", "50000"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["verdict"] == "winnable"
