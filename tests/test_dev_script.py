"""scripts/dev.py: the embedded run's start-up preparation, the test command's word on
Chromium, the screenshots command (the script imports nothing of the project, so it is
loaded from its file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.dev_script import dev_script


def without_chromium(dev: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without Chromium: nothing of that name on PATH, nothing at Debian's path."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(dev, "DEBIAN_CHROMIUM", tmp_path / "chromium")


def skip_install_and_js(dev: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """The venv is this one, built (the install and build steps are not what is tested),
    and no node tests."""
    monkeypatch.setattr(dev, "ensure_installed", lambda: None)
    monkeypatch.setattr(dev, "ensure_native", lambda: None)
    monkeypatch.setattr(dev, "PYTHON", Path(sys.executable))
    monkeypatch.setattr(dev, "run_js_tests", lambda env: None)


def test_the_test_command_says_how_to_install_chromium_before_pytest_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    dev = dev_script()
    without_chromium(dev, monkeypatch, tmp_path)
    skip_install_and_js(dev, monkeypatch)
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/astrocyte")

    assert dev.command_test(["--version"]) == 0  # pytest itself runs, and says its version

    out = capfd.readouterr()
    text = out.out + out.err
    assert "apt-get install chromium" in text
    assert text.index("apt-get install chromium") < text.index("pytest 8")


def test_the_embedded_run_too_says_how_to_install_chromium_and_nothing_once_it_is_there(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = dev_script()
    without_chromium(dev, monkeypatch, tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    dev.check_browser(dict(os.environ))  # the embedded default runs the browser tests too
    assert "apt-get install chromium" in capsys.readouterr().out

    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    dev.check_browser(dict(os.environ))
    dev.check_browser({**os.environ, "DATABASE_URL": "postgres://x@127.0.0.1/astrocyte"})

    assert "chromium" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "added"),
    [
        ([], ["-n", "auto"]),
        (["-k", "health", "-x"], ["-n", "auto"]),
        (["-n", "1"], []),
        (["-n2"], []),
        (["-p", "no:xdist"], []),
        (["tests/test_docs.py"], []),
        (["tests/engine/test_deal.py::test_one"], []),
    ],
)
def test_the_test_command_spreads_the_suite_over_the_cores_unless_told_otherwise(
    args: list[str], added: list[str]
) -> None:
    assert dev_script().parallel_args(args) == added


def test_screenshots_are_copied_into_the_docs_only_by_the_screenshots_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dev = dev_script()
    docs = tmp_path / "docs" / "screenshots"
    monkeypatch.setattr(dev, "DOCS_SCREENSHOTS", docs)
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    skip_install_and_js(dev, monkeypatch)
    seen: list[list[str]] = []

    def browser_tests(command: list[str], cwd: Path, env: dict[str, str]) -> Any:
        # Stands for the two browser tests (their own run is tests/frontend/): they write
        # into SCREENSHOTS_DIR, as tests/frontend/conftest.py's fixture gives it to them.
        seen.append(command)
        Path(env["SCREENSHOTS_DIR"], "play-desktop.png").write_bytes(b"png")
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(dev.subprocess, "run", browser_tests)

    assert dev.command_screenshots() == 0
    assert (docs / "play-desktop.png").read_bytes() == b"png"
    assert [part for part in seen[0] if part.startswith("tests/")] == list(dev.SCREENSHOT_TESTS)


def test_the_production_run_gives_its_workers_an_empty_metrics_folder(tmp_path: Path) -> None:
    dev = dev_script()
    env: dict[str, str] = {}
    dev.prepare_metrics_dir(env)
    assert "PROMETHEUS_MULTIPROC_DIR" not in env  # metrics off: nothing to share
    env = {"METRICS_ENABLED": "true", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    (tmp_path / "counter_123.db").write_bytes(b"an earlier run's figures")
    dev.prepare_metrics_dir(env)
    assert list(tmp_path.iterdir()) == []
    env = {"METRICS_ENABLED": "true"}
    dev.prepare_metrics_dir(env)
    made = Path(env["PROMETHEUS_MULTIPROC_DIR"])
    try:
        assert made.is_dir() and list(made.iterdir()) == []
    finally:
        made.rmdir()


def test_the_slow_set_is_read_from_the_measured_durations() -> None:
    """`slow-tests` keeps the tests whose setup, call and teardown add up to a second."""
    output = "\n".join(
        [
            "============================= slowest durations ==============================",
            "0.80s call     tests/a_test.py::test_slow_in_two_parts",
            "0.30s setup    tests/a_test.py::test_slow_in_two_parts",
            "1.50s call     tests/b_test.py::test_slow[case-1]",
            "0.90s call     tests/b_test.py::test_quick",
            "(12 durations < 0.05s hidden.  Use -vv to show these durations.)",
        ]
    )
    assert dev_script().slow_tests_from_durations(output) == [
        "tests/a_test.py::test_slow_in_two_parts",
        "tests/b_test.py::test_slow[case-1]",
    ]
