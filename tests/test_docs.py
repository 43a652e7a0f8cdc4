"""The docs are the project's own and a reference of what is true now."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".html", ".js", ".mjs", ".css", ".toml", ".yml", ".txt", ""}
# A diary's words: which session or issue did what, rather than what is true.
DIARY = re.compile(
    r"\b(first|second|third|fourth|fifth|sixth|seventh|this|last|previous|earlier) session\b",
    re.IGNORECASE,
)


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("needs a git checkout to list the repository's files")
    paths = [ROOT / name for name in listed.split("\0") if name]
    return [p for p in paths if p.suffix in TEXT_SUFFIXES and p.is_file()]


def test_nothing_points_at_rules_outside_the_repository() -> None:
    # docs/rules.md is the contract; a clone has no other RULES.md to read.
    offenders = [
        str(path.relative_to(ROOT))
        for path in tracked_files()
        if path.name != "test_docs.py" and "RULES.md" in path.read_text(errors="replace")
    ]
    assert offenders == []


def test_nothing_cites_a_folder_beside_the_repository() -> None:
    # The architecture is docs/architecture.md; a clone has nothing beside it to read.
    beside = "../" + "shared"
    offenders = [
        str(path.relative_to(ROOT))
        for path in tracked_files()
        if beside in path.read_text(errors="replace")
    ]
    assert offenders == []


def test_the_docs_read_as_a_reference_not_a_diary() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    diary = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in docs
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if DIARY.search(line)
    ]
    assert diary == []
