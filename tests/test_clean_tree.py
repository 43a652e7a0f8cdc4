"""The guard that fails a test run which leaves the checkout changed (tests/clean_tree.py),
on a git repository of its own."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.clean_tree import ROOT, tree_changes, tree_snapshot


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(path: Path) -> Path:
    git(path, "init", "-q")
    (path / "docs").mkdir()
    (path / "docs" / "shot.png").write_bytes(b"old")
    (path / "notes.txt").write_text("mine, not committed\n")
    git(path, "add", "docs")
    git(path, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "first")
    return path


def test_a_rewritten_committed_file_and_a_new_file_are_reported(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    before = tree_snapshot(repo)
    assert before is not None and set(before) == {"notes.txt"}

    (repo / "docs" / "shot.png").write_bytes(b"new")
    (repo / "docs" / "other.png").write_bytes(b"x")

    assert tree_changes(before, tree_snapshot(repo) or {}) == ["docs/other.png", "docs/shot.png"]


def test_a_file_dirty_before_the_run_counts_only_when_the_run_changes_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    before = tree_snapshot(repo)
    assert before is not None
    assert tree_changes(before, tree_snapshot(repo) or {}) == []

    notes = repo / "notes.txt"
    notes.write_text("mine, changed by a test\n")
    os.utime(notes, ns=(notes.stat().st_atime_ns, notes.stat().st_mtime_ns + 1_000_000_000))

    assert tree_changes(before, tree_snapshot(repo) or {}) == ["notes.txt"]


def test_the_checkout_is_a_git_tree_the_guard_can_read() -> None:
    # The guard is on for this checkout (it does nothing where git cannot say).
    if not (ROOT / ".git").exists():
        return
    assert tree_snapshot(ROOT) is not None
