"""The embedded run's verifications: the solver in a niced child process gives what the
solver gives in-process, reports its progress, runs at the niceness asked, and a child that
dies says so instead of hanging or returning nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from games.solver import Progress, solve
from games.solver.child import ChildSolverError, solve_in_child


def solver_children_niceness() -> list[int]:
    """The niceness of this process's solver children (Linux /proc); other children (a
    server or worker another test started) are not counted."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue  # ended meanwhile
            if b"games.solver.child" in command:
                fields = stat.rsplit(")", 1)[1].split()
                found.append(int(fields[16]))  # field 19 of stat: the nice value
    return found


def test_the_child_finds_the_line_the_solver_finds_here() -> None:
    here = solve(("spider2", 3), seconds=30, improve_nodes=5_000)
    there = solve_in_child(
        "spider2", 3, niceness=5, seconds=30, max_memory_mb=1024, improve_nodes=5_000
    )
    assert there.status == here.status == "solved"
    assert there.moves == here.moves and there.nodes == here.nodes
    assert there.first_par == here.first_par and there.improve_nodes == here.improve_nodes


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_the_child_reports_progress_at_the_niceness_asked() -> None:
    reports: list[Progress] = []
    seen: list[int] = []

    def progress(report: Progress) -> None:
        reports.append(report)
        seen.extend(solver_children_niceness())

    result = solve_in_child(
        "spider4", 6, niceness=10, seconds=60, max_memory_mb=1024, improve_nodes=120_000,
        progress=progress,
    )  # fmt: skip
    assert result.status == "solved"
    assert reports and any(report.par is not None for report in reports)
    assert seen and min(seen) >= os.nice(0) + 10


def test_a_child_that_dies_is_an_error_naming_why() -> None:
    with pytest.raises(ChildSolverError, match="unknown variant"):
        solve_in_child("klondike", 1, niceness=0, seconds=5, max_memory_mb=256, improve_nodes=0)


def test_the_child_proves_as_the_complete_search_does_here() -> None:
    """The verification's proof of loss in a niced child: the same verdict and count as
    ``decide.prove_lost`` in this process, for the same node budget."""
    from games.engine import Board
    from games.solver.child import prove_lost_in_child
    from games.solver.decide import prove_lost

    here = prove_lost(Board.deal("spider4", 12), 300)
    there = prove_lost_in_child("spider4", 12, niceness=5, max_nodes=300)
    assert (there.verdict, there.nodes, there.rules) == (here.verdict, here.nodes, here.rules)
    assert there.verdict == "unknown" and there.nodes == 300  # a whole deal: the budget ran out
