"""docs/architecture.md's "may import" table holds: the engine on the standard library alone,
the solver on the engine, config on the apps, the apps on games, everything on core, the web
client's pages on no app, the games services under their tasks, views and door, the door
under its transports, the apps on the live fan-out's face (import-linter, contracts in
pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The packages import-linter checks (pyproject.toml names them), copied whole.
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
    "root_packages"
]


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


# One import added at the top of one module of a copy of the tree, and what
# lint-imports must then report (each contract's kind broken once).
BROKEN_BY = [
    pytest.param(
        "games/engine/moves.py",
        "django.db",
        [
            "The engine imports the standard library only BROKEN",
            "games.engine.moves -> django (l.1)",
        ],
        id="the-engine-importing-django",
    ),
    pytest.param(
        "games/selectors.py",
        "leaderboards.selectors",
        ["games.selectors -> leaderboards.selectors"],
        id="games-importing-the-leaderboards",
    ),
    pytest.param(
        "rooms/services.py",
        "leaderboards.live",
        ["rooms.services -> leaderboards.live"],
        id="rooms-importing-the-leaderboards",
    ),
    # The tasks call the services; a service that sends a task does it by the task's name
    # (the circle games.services.analysis <-> games.tasks is gone and stays gone).
    pytest.param(
        "games/services/analysis.py",
        "games.tasks",
        ["games.services.analysis -> games.tasks (l.1)"],
        id="a-service-importing-the-tasks",
    ),
    pytest.param(
        "games/play/door.py",
        "games.api.play_socket",
        ["games.play.door -> games.api.play_socket (l.1)"],
        id="the-play-door-importing-a-transport",
    ),
    pytest.param(
        "rooms/receivers.py",
        "core.live.broadcasting",
        [
            "The live fan-out is used through core.live's face (its __all__), not its modules",
            "rooms.receivers -> core.live.broadcasting (l.1)",
        ],
        id="an-app-importing-a-module-of-the-live-package",
    ),
]


@pytest.mark.parametrize(("module", "imported", "reported"), BROKEN_BY)
def test_an_import_against_a_contract_breaks_it(
    tmp_path: Path, module: str, imported: str, reported: list[str]
) -> None:
    tree = _copy_tree(tmp_path)
    source = tree / module
    source.write_text(f"import {imported}  # noqa\n" + source.read_text())

    result = _lint_imports(tree)

    assert result.returncode != 0
    for line in reported:
        assert line in result.stdout
