"""``python -m games.engine deal|replay`` (docs/rules.md, "The command line"), run as a real
process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Board, board_state, replay

from .pinned_deals import PINNED_DEALS

ROOT = Path(__file__).resolve().parents[2]


def engine(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert "error" in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


@pytest.mark.parametrize(("variant", "seed"), [("astrocyte", 0), ("spider2", 2**64 - 1)])
def test_deal_prints_the_state(variant: str, seed: int) -> None:
    result = engine("deal", variant, str(seed))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == json.dumps(board_state(Board.deal(variant, seed))) + "\n"
    printed = json.loads(result.stdout)
    assert printed["tableau"] == [col.split() for col in PINNED_DEALS[(variant, seed)]["tableau"]]


LOG = '["t3-t1", "t6-t4", "deal", "undo", "t2-c1"]'


def test_replay_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(LOG, encoding="utf-8")
    result = engine("replay", "astrocyte", "0", str(path))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == json.dumps(replay("astrocyte", 0, LOG).as_dict()) + "\n"
    data = json.loads(result.stdout)
    assert list(data) == ["ok", "applied", "won", "actions", "error", "state"]
    assert (data["ok"], data["applied"], data["actions"], data["error"]) == (True, 5, 5, None)


@pytest.mark.parametrize("args", [(), ("-",)])
def test_replay_from_standard_input(args: tuple[str, ...]) -> None:
    text = "t3-t1 t6-t4\ndeal undo t2-c1\n"
    result = engine("replay", "astrocyte", "0", *args, stdin=text)
    assert result.returncode == 0
    assert json.loads(result.stdout) == replay("astrocyte", 0, LOG).as_dict()


def test_replay_of_a_refused_action_exits_one(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("t3-t1 t1-f1 deal", encoding="utf-8")
    result = engine("replay", "astrocyte", "0", str(path))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["applied"] == 1 and data["actions"] == 3
    assert data["error"]["index"] == 1
    assert data["error"]["action"] == "t1-f1"
    assert data["error"]["kind"] == "illegal"


def test_replay_of_an_invalid_json_item_exits_one() -> None:
    result = engine("replay", "spider1", "0", stdin='["t1-t3", 7]')
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error["index"] == 1 and error["action"] == 7 and error["kind"] == "invalid"


def test_an_empty_log_applies_nothing() -> None:
    result = engine("replay", "spider4", "5", stdin="")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert (data["ok"], data["applied"], data["actions"]) == (True, 0, 0)


@pytest.mark.parametrize("command", ["deal", "replay"])
@pytest.mark.parametrize(
    ("variant", "seed", "words"),
    [
        ("klondike", "0", ["unknown variant", "astrocyte"]),
        ("ASTROCYTE", "0", ["unknown variant"]),
        ("astrocyte", "-1", ["seed", "-1"]),
        ("astrocyte", str(2**64), ["seed", str(2**64)]),
        ("astrocyte", "abc", ["seed", "abc"]),
        ("astrocyte", "1.5", ["seed"]),
        ("astrocyte", "", ["seed"]),
        ("astrocyte", "0x10", ["seed"]),
        ("astrocyte", "+5", ["seed", "+5"]),
        ("astrocyte", " 5", ["seed"]),
        ("astrocyte", "1_000", ["seed", "1_000"]),
        ("astrocyte", "\u0663", ["seed"]),
    ],
)
def test_bad_arguments_give_one_line_and_exit_two(
    command: str, variant: str, seed: str, words: list[str]
) -> None:
    one_line_error(engine(command, variant, seed, stdin=""), *words)


def test_the_largest_seed_is_accepted() -> None:
    result = engine("deal", "spider1", str(2**64 - 1))
    assert result.returncode == 0
    assert json.loads(result.stdout) == board_state(Board.deal("spider1", 2**64 - 1))


def test_an_unreadable_file(tmp_path: Path) -> None:
    one_line_error(
        engine("replay", "astrocyte", "0", str(tmp_path / "missing.json")), "cannot read the log"
    )
    one_line_error(engine("replay", "astrocyte", "0", str(tmp_path)), "cannot read the log")
    binary = tmp_path / "log.bin"
    binary.write_bytes(b"\xff\xfe\x00deal")
    one_line_error(engine("replay", "astrocyte", "0", str(binary)), "cannot read the log")


def test_a_broken_json_log(tmp_path: Path) -> None:
    one_line_error(engine("replay", "astrocyte", "0", stdin='["t3-t1", '), "JSON")
    path = tmp_path / "log.json"
    path.write_text("[t3-t1]", encoding="utf-8")
    one_line_error(engine("replay", "astrocyte", "0", str(path)), "JSON")


@pytest.mark.parametrize(
    "args", [(), ("solve-it",), ("deal",), ("deal", "astrocyte"), ("deal", "astrocyte", "0", "1")]
)
def test_usage_errors(args: tuple[str, ...]) -> None:
    one_line_error(engine(*args))
