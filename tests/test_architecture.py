"""docs/architecture.md's "may import" table holds: the engine on the standard library alone,
the solver on the engine, config on the apps, the apps on games, everything on core, the web
client's pages on no app, the games services under their tasks, views and door, the door
under its transports (import-linter, contracts in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "config",
    "core",
    "accounts",
    "games",
    "leaderboards",
    "rooms",
    "notifications",
    "reviews",
    "frontend",
)


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    # A process of its own, run in the tree checked: the packages found are that tree's.
    return subprocess.run(
        [Path(sys.executable).parent / "lint-imports", "--no-logo", "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy_tree(destination: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            destination / package,
            ignore=shutil.ignore_patterns("__pycache__", "static", "templates"),
        )
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")
    return destination


def test_the_code_keeps_every_import_contract() -> None:
    result = _lint_imports(ROOT)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_engine_importing_django_breaks_its_contract(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    moves = tree / "games" / "engine" / "moves.py"
    moves.write_text("import django.db  # noqa\n" + moves.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    assert "The engine imports the standard library only BROKEN" in result.stdout
    assert "games.engine.moves -> django (l.1)" in result.stdout


def test_games_importing_the_leaderboards_breaks_the_layers(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    selectors = tree / "games" / "selectors.py"
    selectors.write_text("import leaderboards.selectors  # noqa\n" + selectors.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    assert "games.selectors -> leaderboards.selectors" in result.stdout


def test_rooms_importing_the_leaderboards_breaks_the_layers(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    services = tree / "rooms" / "services.py"
    services.write_text("import leaderboards.live  # noqa\n" + services.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    assert "rooms.services -> leaderboards.live" in result.stdout


def test_a_service_importing_the_tasks_breaks_its_contract(tmp_path: Path) -> None:
    """The tasks call the services; a service that sends a task does it by the task's name
    (the circle games.services.analysis <-> games.tasks is gone and stays gone)."""
    tree = _copy_tree(tmp_path)
    analysis = tree / "games" / "services" / "analysis.py"
    analysis.write_text("import games.tasks  # noqa\n" + analysis.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    assert "games.services.analysis -> games.tasks (l.1)" in result.stdout


def test_the_play_door_importing_a_transport_breaks_its_contract(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    door = tree / "games" / "play" / "door.py"
    door.write_text("import games.api.play_socket  # noqa\n" + door.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    assert "games.play.door -> games.api.play_socket (l.1)" in result.stdout
