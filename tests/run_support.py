"""Running a command of the project in a subprocess, as a test does to see it from outside
(a fresh interpreter, a management command)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_ok(
    command: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``command`` run in the repository's root with ``env``, its output captured as text;
    it must exit 0 (else its stderr is the failure's message)."""
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, result.stderr
    return result


def stop_process(process: subprocess.Popen[bytes], grace: float = 10) -> None:
    """Stop a process the test started (by its id): SIGTERM, then SIGKILL if it has not
    exited within ``grace`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def caddy_environment(port: int, upstream_port: int | str, scratch: Path) -> dict[str, str]:
    """deploy/Caddyfile's settings for a Caddy on loopback ``port`` in front of a server on
    ``upstream_port``, its state under ``scratch``, no admin endpoint."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(scratch),
        "XDG_DATA_HOME": str(scratch / "data"),
        "XDG_CONFIG_HOME": str(scratch / "config"),
        "SITE_ADDRESS": f"http://127.0.0.1:{port}",
        "WEB_UPSTREAM": "127.0.0.1",  # the `web` service's name in compose
        "WEB_PORT": str(upstream_port),
        "CADDY_ADMIN": "off",
    }
