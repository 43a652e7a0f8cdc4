#!/usr/bin/env python3.11
"""Install, run and test Astrocyte Daily with nothing but Python 3.11 and a package index.

    python3.11 scripts/dev.py run [--prod] [--host H] [--port P] [--workers N] [--reload] [--debug]
    python3.11 scripts/dev.py test [pytest arguments…]   # first the JavaScript unit tests (node)
    python3.11 scripts/dev.py test --quick  # no service, browser or slow test: under a minute
    python3.11 scripts/dev.py screenshots # the browser tests' screenshots into docs/screenshots
    python3.11 scripts/dev.py lint
    python3.11 scripts/dev.py compose-smoke  # the compose stack built, scaled and played for real
    python3.11 scripts/dev.py lock        # regenerate both locks after editing pyproject

Two locks, exact pins with hashes: requirements.lock holds what the server needs (the
Dockerfile installs it, nothing more), requirements-dev.lock the same pins plus the dev
extra (tests, linters, type stubs). Every command first makes sure `.venv` exists and holds
exactly requirements-dev.lock (installed with --require-hashes) plus the project itself in
editable mode; a stamp file skips the install when neither lock nor pyproject.toml changed.
`run`, `test` and `screenshots` then compile the engine's and the solver's hot modules
(scripts/build_native.py, mypyc) when their sources changed since the last build.

Standard library only: this script runs before anything is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import venv
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements.lock"  # runtime: the production image
DEV_LOCK = ROOT / "requirements-dev.lock"  # runtime and the dev extra: this script's .venv
# mypy (mypyc) and what it needs, pinned as in DEV_LOCK: the image's compile stage
NATIVE_LOCK = ROOT / "requirements-native.lock"
NATIVE_TOOLS = ("mypy", "mypy-extensions", "typing-extensions", "pathspec", "librt")
PYPROJECT = ROOT / "pyproject.toml"
STAMP = VENV / "astrocyte-install.stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
ASGI_APP = "config.asgi:application"
# The web client's unit tests: Node's built-in test runner, no npm package, no build step.
JS_TESTS = ROOT / "tests" / "frontend" / "js"
NODE_MIN_MAJOR = 18  # `node --test` with --test-reporter
# The browser tests drive Debian's Chromium (never `playwright install`): the names the tests
# look for on PATH (tests/conftest.py), and where Debian puts it.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
# The screenshots in the README and docs, written by these browser tests into
# SCREENSHOTS_DIR (a temporary folder unless set: tests/frontend/conftest.py).
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
SCREENSHOT_TESTS = (
    "tests/frontend/test_astrocyte.py::test_astrocyte_layout_first_moves_with_a_cell_and_screenshots",
    "tests/frontend/test_play.py::test_screenshots_of_the_board_on_a_desktop_and_a_phone",
    "tests/frontend/test_game_end.py",
)


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def run(command: Sequence[str | os.PathLike[str]], env: dict[str, str] | None = None) -> None:
    say("$ " + " ".join(str(part) for part in command))
    subprocess.run([str(part) for part in command], check=True, cwd=ROOT, env=env)


def install_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (LOCK, DEV_LOCK, PYPROJECT):
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def ensure_installed() -> None:
    if sys.version_info[:2] != (3, 11):
        say(f"warning: the locks are for Python 3.11, this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        say(f"creating virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True, clear=VENV.exists()).create(VENV)
    fingerprint = install_fingerprint()
    if STAMP.exists() and STAMP.read_text().strip() == fingerprint:
        return
    run([PYTHON, "-m", "pip", "install", "--require-hashes", "-r", DEV_LOCK])
    run([PYTHON, "-m", "pip", "install", "--no-deps", "-e", "."])
    STAMP.write_text(fingerprint + "\n")
    say("dependencies installed")


def ensure_native() -> None:
    """Compile the engine's and the solver's hot modules (mypyc, about 30 s) when their
    sources changed since the last build; if it fails, the code runs as plain Python."""
    build = subprocess.run([str(PYTHON), str(ROOT / "scripts" / "build_native.py")], cwd=ROOT)
    if build.returncode != 0:
        say("warning: no compiled build: the solver runs as plain Python, about 3 times slower")


def manage(*args: str, env: dict[str, str] | None = None) -> None:
    run([PYTHON, "manage.py", *args], env=env)


def exec_server(command: list[str], env: dict[str, str]) -> int:
    say("$ " + " ".join(command))
    if os.name == "posix":
        # Become the server, so that signals (Ctrl-C, SIGTERM from a supervisor) reach it.
        os.chdir(ROOT)
        os.execve(command[0], command, env)
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        return process.wait()


def describe_services(env: dict[str, str]) -> None:
    database = env.get("DATABASE_URL") or "SQLite file db.sqlite3 (embedded default)"
    redis = env.get("REDIS_URL")
    say(f"database: {database}")
    say(
        f"channel layer and Celery: Redis at {redis}"
        if redis
        else "channel layer: in-memory; Celery tasks: run in-process (REDIS_URL unset)"
    )


GRACEFUL_SHUTDOWN_SECONDS = 10
WS_MAX_FRAME_BYTES = 64 * 1024


def server_command(
    *,
    host: str,
    port: int,
    prod: bool = False,
    workers: int | None = None,
    reload: bool = False,
    env: dict[str, str] | None = None,
) -> list[str]:
    """The uvicorn command line `run` serves with (tests/config/test_shutdown.py runs it)."""
    env = dict(os.environ) if env is None else env
    uvicorn = [str(BIN / "uvicorn"), ASGI_APP, "--host", host, "--port", str(port)]
    # The lifespan starts the embedded beat when REDIS_URL is unset (games/embedded_lifespan.py: the
    # day's close at 00:00 UTC, the next days' dailies); production leaves the schedule to
    # `celery -A config beat`.
    uvicorn += ["--lifespan", "off" if prod else "on"]
    # Forwarded headers only from the configured proxies (none by default: uvicorn's own
    # default trusts 127.0.0.1, and a local client could then choose its address).
    uvicorn += ["--forwarded-allow-ips", env.get("FORWARDED_ALLOW_IPS", "")]
    # A client sends the live board nothing but pings: a frame past this is refused by the
    # server (1009) before it is read whole (uvicorn's default is 16 MiB).
    uvicorn += ["--ws-max-size", str(WS_MAX_FRAME_BYTES)]
    # Live boards go uncompressed: permessage-deflate compresses the same board once per
    # watcher and keeps a compressor per socket (docs/scaling.md: 1,000 watchers' p50
    # 1.8 s -> 0.74 s and 82 -> 41 KiB each, measured side by side).
    uvicorn += ["--ws-per-message-deflate", "false"]
    if prod:
        # Two per core: one process runs Python on one core at a time (the GIL), and keep-alive
        # connections stay with the process that accepted them, so with one per core a
        # busy process saturates while the other idles (docs/api.md: p99 200 -> 78 ms).
        workers = workers or 2 * (os.cpu_count() or 1)
        uvicorn += ["--workers", str(workers), "--no-access-log", "--log-level", "warning"]
        # SIGTERM: stop accepting, close the WebSockets, and give requests this long before
        # cancelling what is left (a watcher waiting on a dead Redis must not hold it open).
        uvicorn += ["--timeout-graceful-shutdown", str(GRACEFUL_SHUTDOWN_SECONDS)]
    elif reload:
        uvicorn += ["--reload"]
        for folder in ("config", "games", "leaderboards", "frontend"):
            uvicorn += ["--reload-dir", folder]
    return uvicorn


def prepare_metrics_dir(env: dict[str, str]) -> None:
    """With METRICS_ENABLED, the production server's worker processes share their metrics
    through PROMETHEUS_MULTIPROC_DIR (docs/metrics.md): a given one is emptied (figures of
    an earlier run must not count), else a fresh temporary one is made."""
    if env.get("METRICS_ENABLED", "").strip().lower() not in ("1", "true", "yes", "on"):
        return
    folder = env.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        for stale in Path(folder).glob("*.db"):
            stale.unlink()
    else:
        folder = env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="astrocyte-metrics-")
    say(f"metrics: /metrics/, the worker processes' figures summed through {folder}")


# The embedded run's signing key, made once and kept (sessions survive a restart).
EMBEDDED_SECRET_KEY_FILE = ROOT / ".embedded-secret-key"
TRUE_WORDS = ("1", "true", "yes", "on")


def debug_asked(environ: dict[str, str], flag: bool) -> bool:
    """Development mode (DEBUG) only when asked for: ``--debug``, or DEBUG set true in the
    environment. Its error pages show tracebacks, settings and the request to anyone."""
    return flag or environ.get("DEBUG", "").strip().lower() in TRUE_WORDS


def embedded_secret_key() -> str:
    """The key kept in EMBEDDED_SECRET_KEY_FILE (readable by its owner only), made the first
    time."""
    if not EMBEDDED_SECRET_KEY_FILE.exists():
        descriptor = os.open(EMBEDDED_SECRET_KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as key_file:
            key_file.write(secrets.token_urlsafe(50))
    return EMBEDDED_SECRET_KEY_FILE.read_text().strip()


# What the static files in STATIC_ROOT (config/settings.py) were collected from:
# collectstatic (5-6 s, hashing and compressing every file) runs again only when a source
# changed or the collection is gone.
STATIC_ROOT = ROOT / "staticfiles"
STATIC_SOURCES = sorted(ROOT.glob("*/static"))  # the apps' own; the packages' come with STAMP
STATIC_STAMP = VENV / "astrocyte-static.stamp"


def static_fingerprint() -> str:
    """The apps' static files (names, sizes, times) and the installed packages (STAMP)."""
    digest = hashlib.sha256(STAMP.read_bytes() if STAMP.exists() else b"")
    for folder in STATIC_SOURCES:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                status = path.stat()
                digest.update(f"{path}:{status.st_size}:{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def collect_static(env: dict[str, str]) -> None:
    """collectstatic, unless the static files were collected from these very sources."""
    fingerprint = static_fingerprint()
    collected = (STATIC_ROOT / "staticfiles.json").exists()  # WhiteNoise's manifest
    if collected and STATIC_STAMP.exists() and STATIC_STAMP.read_text().strip() == fingerprint:
        return
    manage("collectstatic", "--noinput", "-v", "0", env=env)
    STATIC_STAMP.write_text(fingerprint + "\n")


def run_environment(environ: dict[str, str], *, prod: bool, debug: bool) -> dict[str, str]:
    """The server's environment for `run`: DEBUG off unless asked for (never with --prod),
    and then a SECRET_KEY of its own when none is set."""
    env = dict(environ)
    if not prod and debug_asked(environ, debug):
        env["DEBUG"] = "true"
        return env
    env["DEBUG"] = "false"
    if not env.get("SECRET_KEY"):
        if prod:
            # Production mode refuses the development key; for a local benchmark a throwaway
            # key is fine (sessions simply do not survive a restart).
            env["SECRET_KEY"] = secrets.token_urlsafe(50)
            say("SECRET_KEY unset: using a random throwaway key for this run")
        else:
            env["SECRET_KEY"] = embedded_secret_key()
    return env


def command_run(args: argparse.Namespace) -> int:
    ensure_installed()
    ensure_native()
    env = run_environment(dict(os.environ), prod=args.prod, debug=args.debug)
    if args.prod:
        if not env.get("REDIS_URL"):
            say(
                "note: without REDIS_URL each worker process has its own in-memory channel "
                "layer, so live updates do not cross workers"
            )
        describe_services(env)
        prepare_metrics_dir(env)
        manage("migrate", "--noinput", env=env)
    else:
        describe_services(env)
        manage("migrate", "--noinput", env=env)
        if not env.get("REDIS_URL"):
            # No worker in the embedded run: the server's embedded beat proves today's daily
            # first, in a child process at a lower CPU priority, while the pages already
            # answer (the home page shows the proof's progress and opens the day when ready).
            say(
                "serving at once; today's daily is proven in the background "
                "(docs/embedded.md), then the next days and the practice pools"
            )
    if env["DEBUG"] == "true":
        say("DEBUG on (asked for): error pages show tracebacks and settings; keep it local")
    else:
        # Without DEBUG, WhiteNoise serves the collected (hashed, compressed) static files.
        collect_static(env)
    if not env.get("VAPID_PRIVATE_KEY"):
        # The reminders' Web Push key: made once into a git-ignored file (docs/operations.md).
        manage("push_keys", env=env)
    uvicorn = server_command(
        host=args.host,
        port=args.port,
        prod=args.prod,
        workers=args.workers,
        reload=args.reload,
        env=env,
    )
    say(f"serving on http://{args.host}:{args.port}/  (Ctrl-C stops)")
    return exec_server(uvicorn, env)


def services_required(env: dict[str, str]) -> bool:
    """REQUIRE_SERVICES=1 (as CI sets for the full stack) or =embedded (CI's run of the
    embedded default, where only PostgreSQL and Redis may be missing): a missing tool is a
    failure, not a skip."""
    return env.get("REQUIRE_SERVICES", "").strip().lower() in ("1", "true", "yes", "embedded")


def find_node() -> tuple[str | None, str]:
    """The `node` to run the JavaScript unit tests with and its version, or None and why not."""
    node = shutil.which("node")
    if node is None:
        return None, f"needs Node.js {NODE_MIN_MAJOR} or later: no `node` on PATH"
    try:
        version = subprocess.run(
            [node, "--version"], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"`{node} --version` failed: {error}"
    major = version.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MIN_MAJOR:
        return None, f"needs Node.js {NODE_MIN_MAJOR} or later, found {version or 'nothing'}"
    return node, version


def run_js_tests(env: dict[str, str]) -> str | None:
    """Run the web client's unit tests (tests/frontend/js/*.test.mjs) with `node --test`.
    Returns what failed, or None: they passed, or were skipped for want of node (a failure
    with REQUIRE_SERVICES=1)."""
    files = sorted(JS_TESTS.glob("*.test.mjs"))
    node, version = find_node()
    if node is None:
        if services_required(env):
            failure = f"the JavaScript unit tests were not run: {version} (REQUIRE_SERVICES=1)"
            say(f"FAILED: {failure}")
            return failure
        say(f"JavaScript unit tests: SKIPPED, {version}")
        return None
    say(f"JavaScript unit tests ({len(files)} files, node {version}):")
    command = [node, "--test", "--test-reporter=spec", *(str(f.relative_to(ROOT)) for f in files)]
    say("$ " + " ".join(command))
    if subprocess.run(command, cwd=ROOT, env=env).returncode != 0:
        say("JavaScript unit tests: FAILED")
        return "the JavaScript unit tests failed (their output is above pytest's)"
    say("JavaScript unit tests: passed")
    return None


def chromium_missing() -> bool:
    return not (any(shutil.which(name) for name in CHROMIUM_NAMES) or DEBIAN_CHROMIUM.exists())


def chromium_install_command() -> str:
    """The one command that installs the browser the tests drive (Debian's package)."""
    as_root = os.name == "posix" and os.geteuid() == 0
    return ("" if as_root else "sudo ") + "apt-get install chromium"


def check_browser(env: dict[str, str]) -> None:
    """Say how to install Chromium before pytest starts when it is missing (the browser
    tests would fail, or skip, one by one)."""
    if not chromium_missing():
        return
    outcome = "fail" if services_required(env) else "be skipped"
    say(f"the browser tests need Chromium and will {outcome} without it; install it with:")
    say(f"    {chromium_install_command()}")


def parallel_args(pytest_args: Sequence[str]) -> list[str]:
    """pytest-xdist across the cores (``-n auto``) unless the arguments choose (``-n 1``,
    ``-p no:xdist``) or name tests to run: a handful runs sooner in one process."""
    chosen = any(
        arg in ("-n", "--numprocesses", "no:xdist")
        or arg.startswith(("-n", "--numprocesses="))
        or "::" in arg
        or arg.endswith(".py")
        for arg in pytest_args
    )
    return [] if chosen else ["-n", "auto"]


# `test --quick`: what needs no service, no browser and no tool, and is not slow (marker
# `slow`, tests/conftest.py): a developer's check in under a minute. CI runs everything.
QUICK_MARKERS = "not (slow or postgres or redis or celery or browser or caddy or compose)"
# `slow-tests`: the tests of that set that take SLOW_SECONDS or more (setup, call and
# teardown) are listed in SLOW_TESTS, which tests/conftest.py marks `slow`.
SERVICELESS_MARKERS = "not (postgres or redis or celery or browser or caddy or compose)"
SLOW_SECONDS = 1.0
SLOW_TESTS = ROOT / "tests" / "slow_tests.txt"
DURATION_LINE = re.compile(r"^\s*([0-9.]+)s (?:setup|call|teardown)\s+(\S+)\s*$")


def slow_tests_from_durations(output: str, threshold: float = SLOW_SECONDS) -> list[str]:
    """The test ids whose phases, as pytest's ``--durations=0`` lists them, add up to at
    least ``threshold`` seconds."""
    totals: dict[str, float] = {}
    for line in output.splitlines():
        found = DURATION_LINE.match(line)
        if found:
            totals[found[2]] = totals.get(found[2], 0.0) + float(found[1])
    return sorted(test for test, seconds in totals.items() if seconds >= threshold)


def command_slow_tests() -> int:
    """Measure the service-less tests (pytest --durations) and write SLOW_TESTS."""
    ensure_installed()
    ensure_native()
    command = [
        str(PYTHON), "-m", "pytest", "-m", SERVICELESS_MARKERS, "-n", "auto",
        "--durations=0", "--durations-min=0.05", "-q", "-p", "no:cacheprovider",
    ]  # fmt: skip
    say("$ " + " ".join(command))
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    print(run.stdout[-2000:])
    if run.returncode != 0:
        say("slow-tests: the run failed; tests/slow_tests.txt left as it was")
        return run.returncode
    slow = slow_tests_from_durations(run.stdout)
    header = [
        f"# Tests that took {SLOW_SECONDS:g} s or more (setup, call and teardown), as measured by",
        "# `python3.11 scripts/dev.py slow-tests` (pytest --durations on the service-less set);",
        "# tests/conftest.py marks them `slow`, so `test --quick` leaves them out. Regenerated,",
        "# not edited by hand.",
    ]
    SLOW_TESTS.write_text("\n".join([*header, *slow]) + "\n")
    say(f"wrote {len(slow)} slow test(s) to {SLOW_TESTS.relative_to(ROOT)}")
    return 0


def command_test(pytest_args: list[str]) -> int:
    if "--quick" in pytest_args:
        pytest_args = [arg for arg in pytest_args if arg != "--quick"]
        pytest_args = ["-m", QUICK_MARKERS, *pytest_args]
    ensure_installed()
    ensure_native()
    env = dict(os.environ)
    describe_services(env)
    check_browser(env)
    # Node first (about a second), so that pytest's closing lines stay the last output,
    # unless the JavaScript tests failed: then that is said last.
    js_failure = run_js_tests(env)
    command = [str(PYTHON), "-m", "pytest", *parallel_args(pytest_args), *pytest_args]
    say("$ " + " ".join(command))
    status = subprocess.run(command, cwd=ROOT, env=env).returncode
    if js_failure:
        say(f"FAILED: {js_failure}")
        return status or 1
    return status


def command_screenshots() -> int:
    """Run the browser tests that take the docs' screenshots, then copy them into
    docs/screenshots: a test run alone never touches the tree."""
    ensure_installed()
    ensure_native()
    env = dict(os.environ)
    describe_services(env)
    check_browser(env)
    with tempfile.TemporaryDirectory(prefix="astrocyte-screenshots-") as folder:
        env["SCREENSHOTS_DIR"] = folder
        command = [str(PYTHON), "-m", "pytest", *SCREENSHOT_TESTS]
        say("$ " + " ".join(command))
        status = subprocess.run(command, cwd=ROOT, env=env).returncode
        taken = sorted(Path(folder).glob("*.png"))
        if status != 0 or not taken:
            say(
                "screenshots: the tests failed or were skipped (they need DATABASE_URL and "
                "REDIS_URL); docs/screenshots left as it was"
            )
            return status or 1
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for png in taken:
            shutil.copyfile(png, DOCS_SCREENSHOTS / png.name)
            say(f"wrote {(DOCS_SCREENSHOTS / png.name).relative_to(ROOT)}")
    return 0


def command_lint() -> int:
    ensure_installed()
    status = 0
    checks = (
        [BIN / "ruff", "check", "."],
        [BIN / "mypy", "."],
        [BIN / "lint-imports", "--no-logo"],
    )
    for command in checks:
        say("$ " + " ".join(str(part) for part in command))
        status |= subprocess.run([str(part) for part in command], cwd=ROOT).returncode
    return status


def compile_lock(
    uv: Path, lock: Path, extras: list[str], scratch: Path, constraints: Path | None = None
) -> str:
    """``uv pip compile`` of pyproject.toml (with ``extras``) into ``lock``'s text."""
    compiled = scratch / lock.name
    # uv keeps the pins of an existing output file where they still satisfy pyproject:
    # adding one package then changes only what that package needs.
    if lock.exists():
        compiled.write_text(lock.read_text())
    command: list[str | os.PathLike[str]] = [uv, "pip", "compile", "pyproject.toml"]
    for extra in extras:
        command += ["--extra", extra]
    if constraints is not None:
        command += ["--constraint", constraints]
    command += ["--generate-hashes", "--python-version", "3.11", "-o", compiled]
    run(command)
    body = compiled.read_text().replace(str(compiled), lock.name)
    if constraints is not None:
        body = body.replace(str(constraints), constraints.name)
    shown = " ".join(part.name if isinstance(part, Path) else str(part) for part in command[1:-1])
    pinned = "".join(f" and its {extra} extra" for extra in extras)
    return (
        f"# Exact pins with hashes for astrocyte-daily{pinned} (Python 3.11).\n"
        "# Regenerate both locks after changing pyproject.toml with:"
        "  python3.11 scripts/dev.py lock\n"
        "# (which runs, in a scratch venv with uv installed by pip:\n"
        f"#   uv {shown} {lock.name})\n"
    ) + body


def command_lock() -> int:
    """requirements-dev.lock first, then requirements.lock constrained by it: the server's
    pins are the very ones the tests ran with."""
    with tempfile.TemporaryDirectory(prefix="astrocyte-uv-") as scratch_name:
        scratch = Path(scratch_name)
        venv.EnvBuilder(with_pip=True).create(scratch)
        scratch_bin = scratch / BIN.name
        run([scratch_bin / "python", "-m", "pip", "install", "--quiet", "uv"])
        uv = scratch_bin / "uv"
        DEV_LOCK.write_text(compile_lock(uv, DEV_LOCK, ["dev"], scratch))
        say(f"wrote {DEV_LOCK}")
        LOCK.write_text(compile_lock(uv, LOCK, [], scratch, constraints=DEV_LOCK))
        say(f"wrote {LOCK}")
    NATIVE_LOCK.write_text(native_lock(DEV_LOCK.read_text()))
    say(f"wrote {NATIVE_LOCK}")
    return 0


def native_lock(dev_lock: str) -> str:
    """The entries of NATIVE_TOOLS in the dev lock's text, pins and hashes unchanged."""
    entries = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", dev_lock)
    kept = [
        "".join(line + "\n" for line in entry.splitlines() if not line.lstrip().startswith("#"))
        for entry in entries
        if re.sub(r"[-_.]+", "-", entry.split("==", 1)[0]).lower() in NATIVE_TOOLS
    ]
    return (
        "# mypy (mypyc) and its dependencies, pinned as in requirements-dev.lock, for the\n"
        "# production image's compile stage (Dockerfile, scripts/build_native.py).\n"
        "# Written by `python3.11 scripts/dev.py lock` from requirements-dev.lock.\n"
    ) + "".join(kept)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/dev.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run_parser = commands.add_parser("run", help="install, migrate and serve (ASGI, uvicorn)")
    run_parser.add_argument("--host", default="127.0.0.1")
    run_parser.add_argument("--port", type=int, default=8000)
    run_parser.add_argument(
        "--prod",
        action="store_true",
        help="production mode: DEBUG off, collectstatic, several worker processes",
    )
    run_parser.add_argument(
        "--workers", type=int, help="worker processes with --prod (default: 2 per core)"
    )
    run_parser.add_argument("--reload", action="store_true", help="restart on code changes")
    run_parser.add_argument(
        "--debug",
        action="store_true",
        help="development mode: DEBUG on (error pages show tracebacks, settings and the "
        "request; also DEBUG=true in the environment); never with --prod",
    )

    commands.add_parser(
        "test",
        help="install, run the JavaScript unit tests (node --test), then pytest with any "
        "further arguments",
    )
    commands.add_parser(
        "screenshots",
        help="run the browser tests that take the docs' screenshots and copy them into "
        "docs/screenshots (needs DATABASE_URL, REDIS_URL and Chromium)",
    )
    commands.add_parser("lint", help="install, then ruff check and mypy")
    commands.add_parser(
        "slow-tests",
        help="measure the service-less tests (pytest --durations) and write tests/slow_tests.txt, "
        "the `slow` set that `test --quick` leaves out",
    )
    commands.add_parser(
        "compose-smoke",
        help="build and run the compose stack for real and play through it "
        "(scripts/compose_smoke.py; needs root for Docker; further arguments go to it)",
    )
    commands.add_parser(
        "lock",
        help="regenerate requirements.lock (runtime) and requirements-dev.lock (with the dev "
        "extra) from pyproject.toml",
    )

    # Everything after `test` belongs to pytest, including options argparse would reject.
    if argv[:1] == ["test"]:
        return command_test(argv[1:])
    if argv[:1] == ["compose-smoke"]:
        ensure_installed()  # the smoke's HTTP and WebSocket client runs in .venv
        return subprocess.run(
            [str(PYTHON), "scripts/compose_smoke.py", *argv[1:]], cwd=ROOT
        ).returncode
    args = parser.parse_args(argv)
    if args.command == "run":
        return command_run(args)
    if args.command == "screenshots":
        return command_screenshots()
    if args.command == "lint":
        return command_lint()
    if args.command == "slow-tests":
        return command_slow_tests()
    if args.command == "lock":
        return command_lock()
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
