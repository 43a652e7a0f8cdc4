"""A test run leaves the checkout as it found it (a pytest plugin, tests/conftest.py).

At the start of a session it notes what `git status` reports (untracked files included)
with each such file's size and modification time; at the end, any path that is new to
that list or whose file changed makes the run fail, naming it. Tests write into temporary
folders (the browser tests' screenshots too: `scripts/dev.py screenshots` updates
docs/screenshots on purpose). Outside a git checkout, or without git, it does nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
Snapshot = dict[str, tuple[str, int, int]]
BEFORE = pytest.StashKey["Snapshot | None"]()


def tree_snapshot(root: Path) -> Snapshot | None:
    """Path -> (git status code, size, mtime) for every path `git status` reports."""
    try:
        result = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    snapshot: Snapshot = {}
    entries = iter(result.stdout.decode(errors="replace").split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if "R" in code or "C" in code:
            next(entries, None)  # the renamed or copied file's old path
        try:
            stat = (root / path).stat()
            snapshot[path] = (code, stat.st_size, stat.st_mtime_ns)
        except OSError:
            snapshot[path] = (code, -1, -1)
    return snapshot


def tree_changes(before: Snapshot, after: Snapshot) -> list[str]:
    """The paths the run changed: newly reported, or reported before with another file."""
    return sorted(path for path, entry in after.items() if before.get(path) != entry)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if not _is_xdist_worker(session.config):
        session.config.stash[BEFORE] = tree_snapshot(ROOT)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(BEFORE, None)
    if before is None or _is_xdist_worker(session.config):
        return
    after = tree_snapshot(ROOT)
    changed = tree_changes(before, after) if after is not None else []
    if not changed:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        reporter.section("the test run changed the checkout", red=True)
        for path in changed:
            reporter.write_line(f"    {path}")
        reporter.write_line(
            "Tests must write into temporary folders (tmp_path); `git status` shows these "
            f"in {os.fspath(ROOT)}. (Edited by hand meanwhile? Then run the tests again.)"
        )
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
