"""The compiled build (games/engine/native.py): used only when it matches the sources, and it
plays and solves exactly as the Python source does."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from games.engine import native

ROOT = Path(__file__).resolve().parents[2]


def fake_build(root: Path, games: Path) -> None:
    """The files of a build (empty) with the digest of the sources in ``games``."""
    for name in native.MODULES:
        path = native.compiled_path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    (root / "lib").mkdir(exist_ok=True)
    (root / "lib" / ("group__mypyc" + native.EXTENSION)).write_bytes(b"")
    (root / "DIGEST").write_text(native.source_digest(games) + "\n")


def copy_sources(games: Path) -> None:
    for package in ("engine", "solver"):
        shutil.copytree(
            native.GAMES / package, games / package, ignore=shutil.ignore_patterns("__pycache__")
        )


def test_a_build_is_used_only_when_complete_current_and_not_switched_off(tmp_path: Path) -> None:
    games, root = tmp_path / "games", tmp_path / "build"
    copy_sources(games)
    assert "no compiled build" in str(native.check(root, games, environ={}))
    fake_build(root, games)
    assert native.check(root, games, environ={}) is None
    assert native.check(root, games, environ={"ASTROCYTE_NATIVE": "0"}) == "ASTROCYTE_NATIVE=0"

    # an edited module: its compiled copy is stale, so the whole build is left out
    board = games / "engine" / "board.py"
    board.write_text(board.read_text() + "\n# edited\n")
    assert "sources changed" in str(native.check(root, games, environ={}))
    fake_build(root, games)
    assert native.check(root, games, environ={}) is None
    # a module left as Python: the compiled ones were typed against it
    api = games / "solver" / "api.py"
    api.write_text(api.read_text() + "\n# edited\n")
    assert "sources changed" in str(native.check(root, games, environ={}))

    fake_build(root / "again", games)
    native.compiled_path(root / "again", "solver/search.py").unlink()
    reason = str(native.check(root / "again", games, environ={}))
    assert "incomplete" in reason and "solver/search.py" in reason


SOLVE = """
import json, sys
from games.engine import native
from games.solver import solve
import games.engine.board, games.solver.search
rows = []
for variant, seed in (("spider4", 25), ("astrocyte", 4)):
    result = solve((variant, seed), seconds=120, improve_nodes=3000)
    rows.append([result.status, result.nodes, result.improve_nodes, result.moves])
print(json.dumps({
    "status": native.status(),
    "files": [games.engine.board.__file__, games.solver.search.__file__],
    "rows": rows,
}))
"""


def solve_in_process(native_on: bool) -> dict[str, Any]:
    env = dict(os.environ, ASTROCYTE_NATIVE="1" if native_on else "0")
    done = subprocess.run(
        [sys.executable, "-c", SOLVE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.native
def test_the_compiled_solver_finds_the_same_lines_in_the_same_positions() -> None:
    compiled, python = solve_in_process(True), solve_in_process(False)
    assert compiled["status"] == "compiled"
    assert all(str(path).endswith(native.EXTENSION) for path in compiled["files"])
    assert python["status"] == "python: ASTROCYTE_NATIVE=0"
    assert all(str(path).endswith(".py") for path in python["files"])
    # the same search: the same positions counted, the same winning lines, move for move
    assert compiled["rows"] == python["rows"]
    for status, nodes, _, moves in compiled["rows"]:
        assert status == "solved" and nodes > 1000 and len(moves) > 50


@pytest.mark.native
def test_the_compiled_encoding_keeps_no_garbage() -> None:
    """mypyc 1.19 leaks the intermediate results of a chain of ``+`` on bytes: the search's
    keys and positions, built millions of times, took 5 times the memory (1.9 GB on an
    unknown Spider 4 suits deal) until encoding.py joined its bytes instead."""
    from games.engine import Board
    from games.solver import encoding

    assert encoding.__file__.endswith(native.EXTENSION)
    board = Board.deal("astrocyte", 4)
    chunks = encoding.column_chunks(board)
    data = encoding.encode(chunks, encoding.exact_tail(board))
    calls = {
        "column_chunks": lambda: encoding.column_chunks(board),
        "exact_tail": lambda: encoding.exact_tail(board),
        "canonical_key": lambda: encoding.canonical_key(board, chunks),
        "encode": lambda: encoding.encode(chunks, encoding.exact_tail(board)),
        "decode": lambda: encoding.decode(board.variant, board._stock, data),
    }
    for name, call in calls.items():
        call()
        before = sys.getallocatedblocks()
        for _ in range(5_000):
            call()
        assert sys.getallocatedblocks() - before < 500, name


def _solve() -> None:
    from games.solver import solve

    solve(("spider4", 13), seconds=60, max_nodes=40_000)


def _prove() -> None:
    from games.engine import Board
    from games.solver.complete import exhaust

    exhaust(Board.deal("spider4", 13), 40_000)


@pytest.mark.native
@pytest.mark.parametrize(("module", "search"), [("search", _solve), ("complete", _prove)])
def test_a_compiled_search_lets_the_other_threads_run(
    module: str, search: Callable[[], None]
) -> None:
    """Compiled code never offers the interpreter lock by itself: the embedded run's request
    threads (its verifier and its analysis share their process) got no answer out while it
    searched, until the searches called the interpreted ``games/solver/clock.py`` at each
    expansion. Both searches: the solver's, and the complete search of a proof of loss."""
    compiled = importlib.import_module(f"games.solver.{module}").__file__
    assert compiled is not None and compiled.endswith(native.EXTENSION)
    finished = threading.Event()

    def verify() -> None:
        search()
        finished.set()

    worker = threading.Thread(target=verify)
    worker.start()
    lags = []  # how late this thread wakes from a 1 ms sleep while the search runs
    while not finished.is_set():
        began = time.perf_counter()
        time.sleep(0.001)
        lags.append(time.perf_counter() - began)
    worker.join()
    # A search that kept the lock would leave this thread a handful of wake-ups in all; one
    # that offers it, a wake-up every few ms. (A single long wait is the machine's, not the
    # lock's: on a loaded CI machine the OS deschedules a thread for a few hundred ms.)
    assert len(lags) > 50, f"this thread woke {len(lags)} times: the search kept the lock"
    assert statistics.median(lags) < 0.05, f"median wait {statistics.median(lags):.3f} s"
    assert max(lags) < 1.0, f"this thread waited {max(lags):.2f} s for the lock"


@pytest.mark.native
def test_the_build_script_leaves_a_current_build_alone() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/build_native.py"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "is current" in done.stdout and "compiling" not in done.stdout
