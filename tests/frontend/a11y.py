"""The accessibility audit of the browser tests: axe-core (from the npm registry, pinned in
frontend/package.json) injected by Playwright into every page of every browser context the
tests open, and run on demand by ``assert_accessible``.

axe-core is installed by ``ensure_axe`` with ``npm ci`` when frontend/node_modules lacks it:
the project's own files install it, no network is used once it is there.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend"
AXE_SCRIPT = FRONTEND / "node_modules" / "axe-core" / "axe.min.js"
# What fails the audit: axe's two highest impacts.
FAILING_IMPACTS = ("serious", "critical")


class AxeUnavailable(RuntimeError):
    """axe-core is not installed and npm could not install it."""


def ensure_axe() -> Path:
    """axe-core's browser script, installed from frontend/package-lock.json when missing.

    One installer at a time (a lock file: parallel test processes share the tree)."""
    if AXE_SCRIPT.exists():
        return AXE_SCRIPT
    npm = shutil.which("npm")
    if npm is None:
        raise AxeUnavailable("axe-core is not installed and there is no `npm` to install it")
    with (FRONTEND / ".npm-install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not AXE_SCRIPT.exists():
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=FRONTEND,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0 or not AXE_SCRIPT.exists():
                raise AxeUnavailable(f"`npm ci` in frontend/ failed:\n{done.stderr[-2000:]}")
    return AXE_SCRIPT


class AuditedBrowser:
    """A Playwright browser whose every new context injects axe-core into every page."""

    def __init__(self, browser: Any, axe_script: Path) -> None:
        self._browser = browser
        self._axe_script = axe_script

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        context.add_init_script(path=str(self._axe_script))
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """axe's serious and critical violations on the page as it is now."""
    results = page.evaluate(
        """async () => {
          const results = await window.axe.run(document, { resultTypes: ["violations"] });
          return results.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary })),
          }));
        }"""
    )
    return [violation for violation in results if violation["impact"] in FAILING_IMPACTS]


def rule_outcomes(page: Any, rule: str) -> dict[str, int]:
    """How many nodes one axe rule passed, left incomplete (could not tell) or failed."""
    outcomes: dict[str, int] = page.evaluate(
        """async (rule) => {
          const r = await window.axe.run(document, { runOnly: { type: "rule", values: [rule] } });
          return { passes: r.passes.reduce((n, x) => n + x.nodes.length, 0),
                   incomplete: r.incomplete.reduce((n, x) => n + x.nodes.length, 0),
                   violations: r.violations.reduce((n, x) => n + x.nodes.length, 0) };
        }""",
        rule,
    )
    return outcomes


def assert_accessible(page: Any, where: str = "") -> None:
    """No serious or critical violation of axe-core's rules (WCAG A and AA and best practices)
    on the page as it is now."""
    violations = serious_violations(page)
    assert violations == [], (
        f"accessibility violations on {where or page.url}:\n"
        + json.dumps(violations, indent=1)[:6000]
    )
