"""Shorter pars: the improve phase and the new shortening passes keep a line that wins."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from games.engine import Board, Move, replay
from games.solver import solve, verify
from games.solver.beam import beam_search, best_per_deal_count
from games.solver.improve import improve
from games.solver.search import Progress
from games.solver.shorten import drop_by_identity, two_move_shortcuts
from games.solver.staged import BeamRound, staged_search
from games.solver.tracking import Tracked, describe_line, play_steps
from games.solver.window import WindowSearch, line_key, shorten_windows, shortest_between


def _line(variant: str, seed: int) -> tuple[Board, list[Move]]:
    result = solve((variant, seed), seconds=30)
    assert result.status == "solved"
    start = Board.deal(variant, seed)
    return start, [Move.parse(text, start.variant) for text in result.moves]


def _wins(variant: str, seed: int, moves: list[Move]) -> bool:
    replayed = replay(variant, seed, [str(move) for move in moves])
    return replayed.ok and replayed.won


def test_the_improve_phase_finds_a_shorter_line_that_the_engine_replays() -> None:
    # Spider 2 suits deal 8: the width-100 beam needs about 160,000 positions
    first = solve(("spider2", 8), seconds=60)
    improved = solve(("spider2", 8), seconds=60, improve_nodes=200_000)
    assert improved.status == "solved"
    assert improved.par is not None and first.par is not None
    assert improved.first_par is not None and improved.par < improved.first_par
    assert improved.par < first.par * 0.85  # than the line a hint would get
    assert 0 < improved.improve_nodes <= 200_000 + 1_000  # checked every few dozen expansions
    assert verify("spider2", 8, improved.moves)


def test_without_a_budget_there_is_no_improve_phase() -> None:
    # what a hint gets: the first line, shortened, and nothing more
    result = solve(("spider1", 9), seconds=30)
    assert result.improve_nodes == 0
    assert result.par == result.first_par


def test_the_improve_phase_keeps_to_the_time_limit(
    search_clock: Callable[[float], Any],
) -> None:
    # The solver's clock moves 10 ms a read (tests/conftest.py): the deal is proven at about
    # 2.5 s of it, and the improve phase, given positions without end, has the rest.
    search_clock(0.01)
    result = solve(("astrocyte", 4), seconds=3, improve_nodes=10**9)
    assert result.status == "solved"
    assert result.proven_seconds < 3 and result.improve_nodes > 0
    assert 3 <= result.seconds <= 3 + 5 * 0.01  # stopped at the limit, a few reads past it
    assert result.par is not None and result.first_par is not None
    assert result.par <= result.first_par
    assert verify("astrocyte", 4, result.moves)


def test_a_detour_inside_a_window_is_found_and_cut() -> None:
    start, line = _line("spider1", 9)
    # a move and its exact reverse, played after move 20
    board = start.copy()
    for move in line[:20]:
        board.push(move)
    detour: list[Move] = []
    for move in board.legal_moves():
        board.push(move)
        back = Move(move.dst, move.src, move.count)
        if move.src < 10 and move.dst < 10 and board.refusal(back) is None:
            board.push(back)
            if board.position_key() == _after(start, line[:20]).position_key():
                detour = [move, back]
                break
            board.pop()
        board.pop()
    assert detour, "no reversible move at position 20"
    padded = line[:20] + detour + line[20:]
    assert _wins("spider1", 9, padded)
    shorter = shorten_windows(start, padded, time.perf_counter() + 30)
    assert len(shorter) <= len(line)
    assert _wins("spider1", 9, shorter)


def _after(start: Board, moves: list[Move]) -> Board:
    board = start.copy(keep_history=False)
    for move in moves:
        board.push(move)
    return board


def test_the_window_search_reaches_exactly_the_target_in_fewer_moves() -> None:
    start, line = _line("astrocyte", 4)
    begin = _after(start, line[:30])
    target = _after(start, line[:42])
    assert all(move.src != -1 for move in line[30:42])  # no deal in the window
    path = shortest_between(begin, target, 13, 50_000)
    assert path is not None and len(path) <= 12
    assert _after(begin, path).position_key() == target.position_key()
    assert shortest_between(begin, target, 0, 50_000) is None  # nothing is shorter than 0


def test_a_window_with_slack_ends_where_the_caller_accepts_not_only_at_its_target() -> None:
    """``WindowSearch``'s ``accept`` (bench/relaxed_window_bench.py): with a slack, a
    position short of the target that the caller accepts ends the search, by the path that
    reached it; without one, only the target does."""
    start, line = _line("astrocyte", 4)
    begin = _after(start, line[:30])
    nearer = line_key(_after(start, line[:36]))
    target = _after(start, line[:42])
    seen: list[int] = []

    def accept(board: Board, path: list[Move]) -> bool:
        seen.append(len(path))
        return line_key(board) == nearer

    search = WindowSearch(begin, target, 50_000, float("inf"), slack=13, accept=accept)
    path = search.run(12)
    assert path is not None and len(path) <= 6
    assert line_key(_after(begin, path)) == nearer
    # with no slack the accepted position is never tried: its pairs differ from the target's
    seen.clear()
    exact = WindowSearch(begin, target, 50_000, float("inf"), accept=accept)
    assert exact.run(12) is None and not seen


def test_passes_never_lengthen_and_keep_the_win() -> None:
    for variant, seed in (("spider2", 1), ("astrocyte", 9)):
        start, line = _line(variant, seed)
        deadline = time.perf_counter() + 60
        for shortened in (
            two_move_shortcuts(start, line, deadline),
            drop_by_identity(start, line, deadline),
            shorten_windows(start, line, deadline, window=20, step=10, budget=5_000),
        ):
            assert len(shortened) <= len(line)
            assert _wins(variant, seed, shortened)


def test_a_line_by_card_identity_replays_to_the_same_moves() -> None:
    start, line = _line("spider2", 1)
    steps = describe_line(start, line)
    tracked = Tracked(start)
    assert play_steps(tracked, steps) == line
    assert tracked.board.is_won


def test_dropping_a_parking_move_sends_the_card_straight_to_its_place() -> None:
    # a group moved into an empty column and on to its place later: by card identity the
    # second move starts from where the group was, so the parking move can go
    start, line = _line("spider1", 9)
    board = _after(start, [])
    padded: list[Move] = []
    inserted = False
    for move in line:
        if not inserted and move.src < 10 and move.dst < 10 and board._tab[move.dst]:
            empty = next((j for j, column in enumerate(board._tab) if not column), None)
            if empty is not None and move.count < len(board._tab[move.src]):
                park = Move(move.src, empty, move.count)
                padded += [park, Move(empty, move.dst, move.count)]
                inserted = True
                board.push(move)
                continue
        padded.append(move)
        board.push(move)
    assert inserted, "no move of a partial group while a column was empty"
    assert _wins("spider1", 9, padded)
    assert len(drop_by_identity(start, padded, time.perf_counter() + 30)) <= len(line)


def _beam(start: Board, longest: int, **limits: Any) -> tuple[list[Move] | None, int]:
    """The beam at width 50 with 200,000 positions (the minute's deadline never binds)."""
    return beam_search(
        start,
        width=50,
        longest=longest,
        max_nodes=200_000,
        deadline=time.perf_counter() + 60,
        **limits,
    )


def test_the_beam_search_stays_under_its_bound() -> None:
    start, line = _line("spider1", 2)
    found, nodes = _beam(start, longest=len(line) + 40)
    assert nodes > 0
    if found is not None:
        assert len(found) < len(line) + 40
        assert _wins("spider1", 2, found)
    none, _ = _beam(start, longest=10)
    assert none is None  # no Spider deal is won in 10 moves


def test_the_beam_stops_at_its_memory_cap() -> None:
    start, line = _line("spider1", 2)
    found, nodes = _beam(start, longest=len(line) + 40, memory_cap_bytes=1_000_000)
    assert found is None
    assert 0 < nodes < 20_000  # about 1 MB of table


def test_the_beam_keeps_its_width_for_every_number_of_deals() -> None:
    # a position just dealt looks worse than all those that have not dealt yet; it must
    # still be kept, or the beam would never get past a deal
    def entry(penalty: int, node: int, deals: int) -> tuple[int, int, bytes]:
        return (penalty, node, b"position" + bytes((deals,)))

    layer = [entry(10 + k, k, 0) for k in range(5)] + [entry(50 + k, 10 + k, 1) for k in range(3)]
    kept = best_per_deal_count(layer, 2)
    assert kept == [entry(10, 0, 0), entry(11, 1, 0), entry(50, 10, 1), entry(51, 11, 1)]


def test_the_proving_schedule_can_win_with_a_beam_round() -> None:
    start = Board.deal("spider1", 2)
    reports: list[Progress] = []
    outcome = staged_search(
        start,
        deadline=time.perf_counter() + 60,
        max_nodes=None,
        memory_cap_bytes=500_000_000,
        schedule=(BeamRound(50, 400_000),),
        progress=reports.append,
        progress_every=5_000,
    )
    assert outcome.status == "solved"
    assert outcome.beam_widths == (50,)  # the improve phase will not run it again
    assert _wins("spider1", 2, outcome.moves)
    # a long beam round reports its progress like the staged rounds
    nodes = [report.nodes for report in reports]
    assert len(nodes) >= 2 and nodes == sorted(nodes) and nodes[-1] <= outcome.nodes
    assert all(report.par is None for report in reports)


def test_the_improve_phase_reports_the_best_line_as_it_shortens() -> None:
    reports: list[Progress] = []
    result = solve(
        ("spider4", 6),
        seconds=60,
        improve_nodes=60_000,
        progress=reports.append,
        progress_every=10_000,
    )
    assert result.status == "solved" and result.par is not None and result.first_par
    improving = [report for report in reports if report.par is not None]
    assert len(improving) >= 3
    assert [r.nodes for r in improving] == sorted(r.nodes for r in improving)
    assert all(result.par <= r.par <= result.first_par for r in improving if r.par)
    assert improving[-1].nodes <= result.improve_nodes


def test_the_beam_again_from_later_positions_shortens_the_rest_of_the_line() -> None:
    # Spider 4 suits deal 6: the width-50 beam from the deal gives 156 moves; the same beam
    # from every 10th position of that line, bounded by what is left of it, gives 139
    start, line = _line("spider4", 6)
    limits: dict[str, Any] = {
        "deadline": time.perf_counter() + 600,
        "max_nodes": 10**7,
        "memory_cap_bytes": 10**9,
    }
    beam_alone = improve(start, line, steps=(("beam", 50, 400_000),), **limits)
    then_suffixes = improve(
        start, line, steps=(("beam", 50, 400_000), ("suffix", 50, 10, 400_000)), **limits
    )
    assert len(beam_alone.moves) < len(line)
    assert len(then_suffixes.moves) < len(beam_alone.moves) - 5
    assert then_suffixes.nodes <= beam_alone.nodes + 400_000 + 1_000
    assert _wins("spider4", 6, then_suffixes.moves)
