"""``python -m games.solver``: output shape and the engine's one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from games.solver.cli import main


def test_prints_the_result_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spider1", "2", "--seconds", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["status", "moves", "nodes", "seconds", "par", "peak_memory_mb"]
    assert out["status"] == "solved" and out["par"] == len(out["moves"])


def test_unknown_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    # a node limit, not a time limit: the same outcome however fast the machine
    assert main(["spider4", "1", "--max-nodes", "300"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "unknown" and out["moves"] == [] and out["par"] is None


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["spider9", "1"], "unknown variant 'spider9'"),
        (["spider1", "x"], "argument seed"),
        (["spider1", "-1"], "error:"),
        (["spider1", "1", "--seconds", "0"], "positive number"),
        (["spider1", "1", "--seconds", "soon"], "seconds is a number"),
        (["spider1"], "required"),
    ],
)
def test_errors_are_one_line_with_status_2(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m games.solver: error: ")
    assert fragment in err


def test_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games.solver", "spider1", "5", "--seconds", "20"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["status"] == "solved"
