#!/usr/bin/env python3.11
"""TEST-ONLY: build stand-ins for the compose stack's Docker Hub base images from Debian.

    python3.11 scripts/standin_images.py [--force]

The compose smoke test (scripts/compose_smoke.py) builds and runs docker-compose.yml on a
machine that cannot reach Docker Hub, so ``python:3.11-slim``, ``postgres:16``,
``redis:7`` and ``caddy:2`` cannot be pulled. This script makes images under those very
names from Debian bookworm (its mirror is reachable where apt works): a minimal root
file system by ``debootstrap --variant=minbase``, imported as
``astrocyte-standin/debian:bookworm``, then one small Dockerfile each
(tests/compose/standin/), trusting the certificate authorities this machine adds to
Debian's (an egress proxy's): Debian's Python 3.11, PostgreSQL 15 behind an entrypoint with
the official image's POSTGRES_* contract, Redis 7.0, Caddy 2.6. They are labelled
``astrocyte.standin=true``. **They stand in for tests and are never to be shipped or
pushed**: a real deployment pulls the real images (docs/operations.md).

A name that already exists (a real image, or a stand-in built before) is left alone unless
``--force``. Standard library only; needs root (debootstrap) and a running Docker engine.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "compose" / "standin"
BASE = "astrocyte-standin/debian:bookworm"
MIRROR = "http://deb.debian.org/debian"
LABEL = "astrocyte.standin=true"
# The compose stack's base images and the folder of each one's stand-in Dockerfile.
IMAGES = {
    "python:3.11-slim": "python",
    "postgres:16": "postgres",
    "redis:7": "redis",
    "caddy:2": "caddy",
}


def say(message: str) -> None:
    print(f"[standin] {message}", flush=True)


def run(command: list[str], **kwargs: object) -> None:
    say("$ " + " ".join(command))
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def image_exists(name: str) -> bool:
    found = subprocess.run(["docker", "image", "inspect", name], capture_output=True)
    return found.returncode == 0


def trust_this_machines_authorities(rootfs: Path) -> None:
    """The certificate authorities this machine adds to Debian's (an egress proxy's, say)
    go into the stand-ins too, so that pip and apt inside a build reach what the machine
    reaches. Only ever in these test-only images."""
    local = Path("/usr/local/share/ca-certificates")
    added = sorted(local.glob("*.crt")) if local.is_dir() else []
    target = rootfs / "usr/local/share/ca-certificates"
    target.mkdir(parents=True, exist_ok=True)
    for certificate in added:
        shutil.copyfile(certificate, target / certificate.name)
    if added:
        say(f"the stand-ins trust this machine's extra authorities: {[c.name for c in added]}")
        run(["chroot", str(rootfs), "update-ca-certificates"])


def build_base() -> None:
    if shutil.which("debootstrap") is None:
        run(["apt-get", "install", "-y", "--no-install-recommends", "debootstrap"])
    with tempfile.TemporaryDirectory(prefix="astrocyte-rootfs-", dir="/var/tmp") as folder:
        rootfs = Path(folder) / "rootfs"
        run(
            [
                "debootstrap", "--variant=minbase", "--include=ca-certificates",
                "bookworm", str(rootfs), MIRROR,
            ]
        )  # fmt: skip
        trust_this_machines_authorities(rootfs)
        # apt inside the images: the same mirror, no recommends, no caches kept.
        (rootfs / "etc/apt/sources.list").write_text(
            f"deb {MIRROR} bookworm main\ndeb {MIRROR} bookworm-updates main\n"
        )
        (rootfs / "etc/apt/apt.conf.d/90standin").write_text(
            'APT::Install-Recommends "false";\nAcquire::Languages "none";\n'
        )
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for path in (rootfs / cache).glob("*.deb"):
                path.unlink()
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        run(
            ["docker", "import", "--change", f"LABEL {LABEL}", "-", BASE],
            stdin=tar.stdout,
        )
        if tar.wait() != 0:
            raise SystemExit("tar of the root file system failed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild images that exist")
    args = parser.parse_args(argv)
    wanted = [name for name in IMAGES if args.force or not image_exists(name)]
    if not wanted:
        say("every base image is there: nothing to build")
        return 0
    if args.force or not image_exists(BASE):
        build_base()
    for name in wanted:
        folder = STANDIN / IMAGES[name]
        run(["docker", "build", "--label", LABEL, "-t", name, str(folder)])
        say(f"{name}: TEST-ONLY stand-in built from Debian")
    return 0


if __name__ == "__main__":
    sys.exit(main())
