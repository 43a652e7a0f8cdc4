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

The request (the deal and the limits) is one JSON object on its standard input. If the
child dies without a result, ``ChildSolverError`` says how, with the end of its stderr.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from .api import SolveResult, solve
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
    progress: ProgressCallback | None = None,
) -> SolveResult:
    request = {
        "variant": variant,
        "seed": seed,
        "niceness": niceness,
        "seconds": seconds,
        "max_memory_mb": max_memory_mb,
        "improve_nodes": improve_nodes,
    }
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "games.solver.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        result: SolveResult | None = None
        try:
            process.stdin.write(json.dumps(request))
            process.stdin.close()
            for line in process.stdout:
                message = json.loads(line)
                if "progress" in message and progress is not None:
                    progress(Progress(**message["progress"]))
                elif "result" in message:
                    result = _result_from(message["result"])
        finally:
            if process.poll() is None and result is None:
                process.kill()
            status = process.wait()
        if result is None:
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-STDERR_TAIL:].strip()
            raise ChildSolverError(
                f"the solver's child process ended with status {status} and no result"
                + (f": {tail}" if tail else "")
            )
        return result


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

    def progress(report: Progress) -> None:
        _emit({"progress": dataclasses.asdict(report)})

    result = solve(
        (request["variant"], int(request["seed"])),
        seconds=float(request["seconds"]),
        max_memory_mb=int(request["max_memory_mb"]),
        improve_nodes=int(request["improve_nodes"]),
        progress=progress,
    )
    _emit({"result": {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
