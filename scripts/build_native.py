"""Compile the engine's and the solver's hot modules with mypyc (``games.engine.native``).

    .venv/bin/python scripts/build_native.py           # build unless the build is current
    .venv/bin/python scripts/build_native.py --force   # build anyway
    .venv/bin/python scripts/build_native.py --out DIR # elsewhere (the image's build stage)

Needs mypy (mypyc comes with it), setuptools and a C compiler. The modules are compiled as
they are (no source is changed) into a temporary folder, then moved into place whole, with
the digest of their sources written last: a failed build leaves the previous one, or none,
and the code runs as plain Python. ``scripts/dev.py`` runs this at install time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import native  # noqa: E402  (after the path: run as a script)

# mypy's settings for the compilation: the modules' own types only (the project's
# configuration loads the Django plugins, which these modules never import).
MYPY_CONFIG = "[mypy]\npython_version = 3.11\n"

SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify

options, target, build_lib, build_temp = sys.argv[1:5]
modules = mypycify([*options.split("\\n"), *sys.argv[5:]], target_dir=target, opt_level="3")
build = ["build_ext", "--build-lib", build_lib, "--build-temp", build_temp, "--parallel", "2"]
setup(name="astrocyte-native", ext_modules=modules, script_args=build)
"""


def build(out: Path) -> None:
    sources = [str(native.GAMES / name) for name in native.MODULES]
    with tempfile.TemporaryDirectory(prefix="astrocyte-native-") as scratch:
        tmp = Path(scratch)
        config = tmp / "mypy.ini"
        config.write_text(MYPY_CONFIG)
        options = "\n".join(("--config-file", str(config), "--cache-dir", str(tmp / "cache")))
        lib = tmp / "lib"
        command = [sys.executable, "-c", SETUP, options, str(tmp / "c"), str(lib), str(tmp / "o")]
        # in the scratch folder: setuptools would read the project's pyproject.toml here
        subprocess.run([*command, *sources], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        staged = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
        for name in native.MODULES:
            built = lib / "games" / (name.removesuffix(".py") + native.EXTENSION)
            target = native.compiled_path(staged, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)
        (staged / "lib").mkdir()
        for shared in lib.glob("*" + native.EXTENSION):  # the group's runtime library
            shutil.copy2(shared, staged / "lib" / shared.name)
        (staged / "DIGEST").write_text(native.source_digest() + "\n")
    old = out.with_name(out.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staged.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=native.build_dir())
    parser.add_argument("--force", action="store_true", help="build even if current")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    reason = native.check(out, environ={})
    if reason is None and not args.force:
        print(f"[native] the compiled build in {out} is current")
        return 0
    why = reason or "--force"
    print(f"[native] compiling {len(native.MODULES)} modules with mypyc into {out} ({why})")
    began = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        build(out)
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"[native] the build failed ({error}): the code runs as plain Python")
        return 1
    print(f"[native] built in {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
