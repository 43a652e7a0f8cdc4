"""scripts/dev.py's start-up preparation of the embedded run (the script imports nothing of
the project, so it is loaded from its file)."""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "dev.py"


def dev_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("clock", "days"),
    [
        ("12:00:00", 1),  # the embedded beat has hours to prove tomorrow in the background
        ("23:49:59", 1),
        ("23:50:01", 2),  # too close to midnight: start-up proves tomorrow before serving
        ("23:59:50", 2),
    ],
)
def test_start_up_proves_tomorrow_too_when_close_to_midnight(clock: str, days: int) -> None:
    now = dt.datetime.combine(dt.date(2031, 3, 14), dt.time.fromisoformat(clock), tzinfo=dt.UTC)
    assert dev_script().days_to_prepare(now) == days


def test_the_production_run_gives_its_workers_an_empty_metrics_folder(tmp_path: Path) -> None:
    dev = dev_script()
    env: dict[str, str] = {}
    dev.prepare_metrics_dir(env)
    assert "PROMETHEUS_MULTIPROC_DIR" not in env  # metrics off: nothing to share
    env = {"METRICS_ENABLED": "true", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    (tmp_path / "counter_123.db").write_bytes(b"an earlier run's figures")
    dev.prepare_metrics_dir(env)
    assert list(tmp_path.iterdir()) == []
    env = {"METRICS_ENABLED": "true"}
    dev.prepare_metrics_dir(env)
    made = Path(env["PROMETHEUS_MULTIPROC_DIR"])
    try:
        assert made.is_dir() and list(made.iterdir()) == []
    finally:
        made.rmdir()
