"""The compiled build of the engine's and the solver's hot modules, used only when it is current.

``scripts/build_native.py`` compiles :data:`MODULES` with mypyc (C extensions of the same
Python source: same rules, same search, same lines, two to three times faster) into
``<sys.prefix>/astrocyte-native/``: ``tree/games/…`` holds the modules, ``lib/`` the shared
library they load, ``DIGEST`` the :func:`source_digest` of the sources it was made from
(every module of ``games.engine`` and ``games.solver``).
``scripts/dev.py`` builds it whenever the sources change.

At import, ``games.engine`` and ``games.solver`` call :func:`enable`, which puts the build's
folder first on the package's ``__path__`` only when the build is complete and its digest
equals the digest of the sources on disk now, so an edited module never runs stale compiled
code: without a current build everything runs as plain Python (:func:`status` says why).
``ASTROCYTE_NATIVE=0`` in the environment turns the build off (to compare the two, or to
debug in Python).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path

# Paths relative to the ``games`` package: the modules the search spends its time in.
MODULES = (
    "engine/board.py",
    "engine/cards.py",
    "engine/moves.py",
    "engine/variants.py",
    "solver/beam.py",
    "solver/complete.py",
    "solver/encoding.py",
    "solver/heuristic.py",
    "solver/improve.py",
    "solver/macros.py",
    "solver/search.py",
    "solver/shorten.py",
    "solver/staged.py",
    "solver/tracking.py",
    "solver/window.py",
)
GAMES = Path(__file__).resolve().parent.parent
SWITCH = "ASTROCYTE_NATIVE"  # "0": plain Python even with a current build
EXTENSION = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def build_dir() -> Path:
    """Where the build lives: beside the interpreter's packages (``.venv``, the image's venv)."""
    return Path(sys.prefix) / "astrocyte-native"


def source_digest(games: Path = GAMES) -> str:
    """What a build must have been compiled from: this interpreter and every module of the
    two packages (the compiled ones were typed against the others), by their bytes."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{EXTENSION}".encode())
    for path in sorted([*games.glob("engine/*.py"), *games.glob("solver/*.py")]):
        digest.update(path.relative_to(games).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def compiled_path(root: Path, module: str) -> Path:
    """Where the build keeps the extension of ``module`` (a path of :data:`MODULES`)."""
    return root / "tree" / "games" / (module.removesuffix(".py") + EXTENSION)


def check(root: Path, games: Path = GAMES, environ: Mapping[str, str] = os.environ) -> str | None:
    """None when the build at ``root`` may be used; otherwise why not, in words."""
    if environ.get(SWITCH, "1") == "0":
        return f"{SWITCH}=0"
    digest_file = root / "DIGEST"
    if not digest_file.is_file():
        return f"no compiled build in {root} (scripts/build_native.py makes it)"
    missing = [name for name in MODULES if not compiled_path(root, name).is_file()]
    if missing or not any((root / "lib").glob("*" + EXTENSION)):
        return f"the compiled build in {root} is incomplete ({', '.join(missing) or 'lib'})"
    if digest_file.read_text().strip() != source_digest(games):
        return "the sources changed since the compiled build (scripts/build_native.py)"
    return None


@functools.cache  # decided once a process, before the first module is imported
def status() -> str:
    """ "compiled", or "python: <why the build is not used>"."""
    reason = check(build_dir())
    return "compiled" if reason is None else f"python: {reason}"


def enable(package: str, path: list[str]) -> None:
    """Put the build's folder for ``package`` ("games.engine") first on its ``__path__``."""
    if status() != "compiled":
        return
    root = build_dir()
    lib = str(root / "lib")
    if lib not in sys.path:
        sys.path.append(lib)
    path.insert(0, str(root / "tree" / package.replace(".", os.sep)))
