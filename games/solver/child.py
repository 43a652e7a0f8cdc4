"""``solve`` in a child process at a lower CPU priority: the embedded run's verifications.

The embedded run (docs/embedded.md) verifies deals in the one server process that also
answers the requests. In a thread there, the solver would hold the interpreter lock and
share the CPU at the requests' own priority; here it runs as ``python -m
games.solver.child``, niced (``os.nice``), so that the kernel gives the requests the CPU
first and the interpreter lock is not shared at all. The parent gets the same
``SolveResult`` ``solve`` returns and the same progress reports, passed as JSON lines
on the child's standard output:

    {"progress": {"nodes": …, "seconds": …, "open_nodes": …, "best_home": …, "par": …}}
    {"result": {…SolveResult's fields…}}

The request (the deal and the limits: seconds, and ``max_nodes`` or null) is one JSON
object on its standard input. With ``"mode": "prove_lost"`` and ``max_nodes``, the child
runs ``decide.prove_lost`` on the deal instead (the verification's proof of loss, niced
the same way) and writes one line ``{"decision": {"verdict": …, "line": […], "nodes": …,
"rules": […]}}``. If the child dies without a result, ``ChildSolverError`` says how, with
the end of its stderr.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from games.engine import Board

from .api import SolveResult, solve
from .decide import Decision, Verdict, prove_lost
from .outcome import Status
from .search import Progress, ProgressCallback

STDERR_TAIL = 2000  # characters of the child's stderr kept in the error


class ChildSolverError(RuntimeError):
    """The child process ended without a result (killed, out of memory, a crash)."""


def solve_in_child(
    variant: str,
    seed: int,
    *,
    niceness: int,
    seconds: float,
    max_memory_mb: int,
    improve_nodes: int,
    max_nodes: int | None = None,
    progress: ProgressCallback | None = None,
) -> SolveResult:
    request = {
        "variant": variant,
        "seed": seed,
        "niceness": niceness,
        "seconds": seconds,
        "max_nodes": max_nodes,
        "max_memory_mb": max_memory_mb,
        "improve_nodes": improve_nodes,
    }
    result: list[SolveResult] = []

    def heard(message: dict[str, Any]) -> None:
        if "progress" in message and progress is not None:
            progress(Progress(**message["progress"]))
        elif "result" in message:
            result.append(_result_from(message["result"]))

    _run_child(request, heard, lambda: bool(result))
    return result[0]


def prove_lost_in_child(variant: str, seed: int, *, niceness: int, max_nodes: int) -> Decision:
    """``decide.prove_lost`` on the deal, in a niced child as ``solve_in_child``."""
    request = {
        "mode": "prove_lost",
        "variant": variant,
        "seed": seed,
        "niceness": niceness,
        "max_nodes": max_nodes,
    }
    decision: list[Decision] = []

    def heard(message: dict[str, Any]) -> None:
        if "decision" in message:
            fields = message["decision"]
            decision.append(
                Decision(
                    Verdict(fields["verdict"]),
                    list(fields["line"]),
                    int(fields["nodes"]),
                    tuple(fields["rules"]),
                )
            )

    _run_child(request, heard, lambda: bool(decision))
    return decision[0]


def _run_child(
    request: dict[str, Any], heard: Callable[[dict[str, Any]], None], answered: Callable[[], bool]
) -> None:
    """Run the child on ``request``, each JSON line it writes to ``heard``; ChildSolverError
    when it ended before ``answered()``."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "games.solver.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(request))
            process.stdin.close()
            for line in process.stdout:
                heard(json.loads(line))
        finally:
            if process.poll() is None and not answered():
                process.kill()
            status = process.wait()
        if not answered():
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-STDERR_TAIL:].strip()
            raise ChildSolverError(
                f"the solver's child process ended with status {status} and no result"
                + (f": {tail}" if tail else "")
            )


def _result_from(fields: dict[str, Any]) -> SolveResult:
    fields = dict(fields)
    fields["status"] = Status(fields["status"])
    return SolveResult(**fields)


def _emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    request = json.loads(sys.stdin.read())
    niceness = int(request["niceness"])
    if niceness > 0:
        os.nice(niceness)

    if request.get("mode") == "prove_lost":
        start = Board.deal(request["variant"], int(request["seed"]))
        decision = prove_lost(start, int(request["max_nodes"]))
        _emit({"decision": dataclasses.asdict(decision)})
        return 0

    def progress(report: Progress) -> None:
        _emit({"progress": dataclasses.asdict(report)})

    result = solve(
        (request["variant"], int(request["seed"])),
        seconds=float(request["seconds"]),
        max_nodes=None if request.get("max_nodes") is None else int(request["max_nodes"]),
        max_memory_mb=int(request["max_memory_mb"]),
        improve_nodes=int(request["improve_nodes"]),
        progress=progress,
    )
    _emit({"result": {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
