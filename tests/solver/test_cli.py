"""``python -m games.solver``: output shape and the engine's one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from config.env import ENVIRONMENT_VARIABLES
from games.solver.api import DEFAULT_IMPROVE_NODES, DEFAULT_MAX_NODES
from games.solver.cli import build_parser, main


def test_prints_the_result_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spider1", "2", "--seconds", "20", "--improve-nodes", "0"]) == 0
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
        (["spider1", "1", "--improve-nodes", "-5"], "from 0 up"),
        (["spider1", "1", "--improve-nodes", "many"], "a whole number"),
        (["decide", "spider9", "1"], "unknown variant 'spider9'"),
        (["decide", "spider1", "x"], "argument seed"),
        (["decide", "spider1"], "required"),
        (["decide", "spider1", "1", "--nodes", "0"], "a positive whole number"),
        (["decide", "spider1", "1", "--log", "deal t1-t11"], "action 1 't1-t11'"),
        (["decide", "spider1", "1", "--log", "deal t1-c1"], "action 1 't1-c1'"),
        (["decide", "spider1", "1", "--log", '["deal", 3]'], "action 1 3"),
        (["decide", "spider1", "1", "--log", "[deal"], "cannot read the log"),
        (["decide", "spider1", "1", "--log", "undo"], "action 0 'undo': nothing to undo"),
    ],
)
def test_errors_are_one_line_with_status_2(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    command = "python -m games.solver decide" if args[0] == "decide" else "python -m games.solver"
    assert err.count("\n") == 1 and err.startswith(f"{command}: error: ")
    assert fragment in err


def test_runs_as_a_module() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "games.solver",
            "spider1",
            "5",
            "--seconds",
            "20",
            "--improve-nodes",
            "0",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["status"] == "solved"


def test_by_default_it_searches_with_the_pipelines_budgets() -> None:
    args = build_parser().parse_args(["spider1", "1"])
    assert args.improve_nodes == DEFAULT_IMPROVE_NODES
    assert ENVIRONMENT_VARIABLES["SOLVER_IMPROVE_NODES"].default == DEFAULT_IMPROVE_NODES
    assert args.max_nodes == DEFAULT_MAX_NODES
    assert ENVIRONMENT_VARIABLES["SOLVER_NODES"].default == DEFAULT_MAX_NODES


def test_max_nodes_stops_the_proving_search_and_zero_lifts_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    quick = ["spider1", "2", "--seconds", "600", "--improve-nodes", "0"]
    assert main([*quick, "--max-nodes", "200"]) == 1
    stopped = json.loads(capsys.readouterr().out)
    assert stopped["status"] == "unknown" and 200 <= stopped["nodes"] < 400
    assert main([*quick, "--max-nodes", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "solved"


@pytest.mark.django_db
def test_the_command_prints_the_par_the_pipeline_stores(
    settings: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Re-checking a day: the same budget gives the same line, so the same par (a node
    budget, not a time one: the same on any machine)."""
    from games.services.deals import deal_create, deal_verify

    budget = 20_000
    settings.SOLVER_IMPROVE_NODES = budget  # type: ignore[attr-defined]
    deal = deal_verify(deal_id=deal_create(variant="spider2", seed=3).pk, seconds=60)
    assert deal.status == "verified"
    assert main(["spider2", "3", "--improve-nodes", str(budget)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["par"] == deal.par and out["moves"] == deal.solution
    assert main(["spider2", "3", "--improve-nodes", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["par"] >= deal.par
