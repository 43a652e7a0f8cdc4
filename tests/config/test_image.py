"""The production image (Dockerfile) and the two locks it and scripts/dev.py install from.

Docker cannot run here: the Dockerfile is read by its stages, and the locks are compared
with pyproject.toml and with each other."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.dev_script import dev_script

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
RUNTIME_LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
NATIVE_LOCK = ROOT / "requirements-native.lock"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Tools of the development set that must never reach the server's image.
DEV_TOOLS = {
    "pytest",
    "pytest-django",
    "pytest-asyncio",
    "pytest-xdist",
    "hypothesis",
    "mypy",
    "ruff",
    "playwright",
    "django-stubs",
    "djangorestframework-stubs",
    "import-linter",
    "daphne",
    "time-machine",
}
COMPILERS = ("gcc", "g++", "cc ", "clang", "build-essential", "make ", "libpq-dev")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock: Path) -> dict[str, str]:
    return {
        normalized(name): version
        for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", lock.read_text(), re.M)
    }


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert match is not None, requirement
    return normalized(match.group(0))


def instructions() -> str:
    """The Dockerfile without its comments, continuation lines joined."""
    logical = DOCKERFILE.replace("\\\n", " ")
    return "\n".join(
        line for line in logical.splitlines() if line and not line.lstrip().startswith("#")
    )


def stages() -> list[tuple[str, str]]:
    """(the FROM line, the instructions under it) of each stage, in order."""
    lines = instructions().splitlines()
    found: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.upper().startswith("FROM "):
            found.append((line, []))
        else:
            assert found, f"an instruction before the first FROM: {line}"
            found[-1][1].append(line)
    return [(head, "\n".join(body)) for head, body in found]


def test_the_runtime_lock_holds_no_development_tool() -> None:
    runtime = pins(RUNTIME_LOCK)
    assert not DEV_TOOLS & set(runtime), DEV_TOOLS & set(runtime)
    dev_extra = {requirement_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]}
    # Anything named only by the dev extra stays out (pyyaml is also uvicorn[standard]'s).
    transitive_runtime = {"pyyaml"}
    assert not (dev_extra - transitive_runtime) & set(runtime)


def test_the_runtime_lock_pins_every_runtime_dependency_as_the_dev_lock_does() -> None:
    runtime, dev = pins(RUNTIME_LOCK), pins(DEV_LOCK)
    for requirement in PYPROJECT["project"]["dependencies"]:
        assert requirement_name(requirement) in runtime, requirement
    assert set(dev) >= DEV_TOOLS
    # The server runs exactly the versions the tests ran with.
    assert {name: dev[name] for name in runtime} == runtime


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEV_LOCK, NATIVE_LOCK], ids=lambda path: path.name)
def test_every_pin_has_hashes(lock: Path) -> None:
    entries = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", lock.read_text().split("\n", 1)[1])
    for entry in entries:
        if "==" in entry.split("\n")[0]:
            assert "--hash=sha256:" in entry, entry.split("\n")[0]


# Runtime packages with no wheel on the index, only a source archive: pure Python, so the
# build stage builds them without a compiler.
SOURCE_ONLY = ("http-ece",)


def test_the_image_is_built_in_stages_from_slim_python() -> None:
    found = stages()
    assert len(found) >= 3
    for head, _ in found:
        assert re.match(r"FROM python:3\.11-slim\b", head), head
    build_head, build = found[0]
    assert build_head.split()[-1] == "build"
    # Wheels only, but for the pure-Python packages published only as a source archive.
    install = re.search(
        r"pip install --require-hashes --only-binary=:all: (--no-binary=(\S+) )?"
        r"-r requirements\.lock",
        build,
    )
    assert install, "the build stage does not install the runtime lock, hashed, from wheels"
    assert (install.group(2) or "") in ("", *SOURCE_ONLY)
    assert "collectstatic" in build
    assert "requirements-dev.lock" not in instructions()


def test_the_final_stage_runs_as_an_unprivileged_user_without_compilers() -> None:
    _, final = stages()[-1]
    users = re.findall(r"^USER\s+(\S+)", final, re.M)
    assert users, "the final stage sets no USER: it would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    assert re.search(rf"useradd .*--uid {user}\b", final), "the user is made in the final stage"
    # Nothing installed or built there: the environment is copied from the build stage,
    # the compiled modules from the native stage (the one stage with a compiler).
    assert "COPY --from=build /opt/venv /opt/venv" in final
    assert "COPY --from=native /opt/native /opt/venv/astrocyte-native" in final
    assert "pip install" not in final and "apt-get" not in final
    for head, body in stages():
        for compiler in COMPILERS:
            assert head.split()[-1] == "native" or compiler not in body, (head, compiler)


def test_the_native_stage_compiles_the_image_s_own_sources_with_the_pinned_mypy() -> None:
    native = {head.split()[-1]: body for head, body in stages()}["native"]
    assert "pip install --require-hashes --only-binary=:all: -r requirements-native.lock" in native
    assert "scripts/build_native.py --out /opt/native" in native
    # the sources it compiles are the image's own (the digest must match them at run time)
    assert "COPY games ./games" in native


def test_the_native_lock_pins_mypy_as_the_dev_lock_does() -> None:
    native_pins, dev = pins(NATIVE_LOCK), pins(DEV_LOCK)
    assert "mypy" in native_pins
    assert {name: dev[name] for name in native_pins} == native_pins
    # what `scripts/dev.py lock` writes from the dev lock, hashes included
    assert dev_script().native_lock(DEV_LOCK.read_text()) == NATIVE_LOCK.read_text()


def test_the_image_context_leaves_out_what_the_server_does_not_need() -> None:
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".venv", "requirements-dev.lock", "tests", "bench"} <= ignored


def test_scripts_dev_installs_the_dev_lock_and_reinstalls_when_either_lock_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = dev_script()
    assert (dev.LOCK, dev.DEV_LOCK) == (RUNTIME_LOCK, DEV_LOCK)
    for name in ("LOCK", "DEV_LOCK", "PYPROJECT"):
        copy = tmp_path / getattr(dev, name).name
        copy.write_text(getattr(dev, name).read_text())
        monkeypatch.setattr(dev, name, copy)
    before = dev.install_fingerprint()
    for name in ("LOCK", "DEV_LOCK", "PYPROJECT"):
        path = getattr(dev, name)
        original = path.read_text()
        path.write_text(original + "\n# changed\n")
        assert dev.install_fingerprint() != before, f"{path.name} is not in the stamp"
        path.write_text(original)
    assert dev.install_fingerprint() == before

    installed: list[list[str]] = []
    monkeypatch.setattr(dev, "run", lambda command, env=None: installed.append(command))
    monkeypatch.setattr(dev, "PYTHON", tmp_path / "python")
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    (tmp_path / "python").touch()
    dev.ensure_installed()
    assert [str(part) for part in installed[0]][-3:] == [
        "--require-hashes",
        "-r",
        str(dev.DEV_LOCK),
    ]
    assert (tmp_path / "stamp").read_text().strip() == before
