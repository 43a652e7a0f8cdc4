"""scripts/dev.py loaded as a module, for the tests of what it runs (it imports nothing of
the project and is not a package: it is loaded from its file)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "dev.py"


def dev_script() -> ModuleType:
    """A fresh module of scripts/dev.py (a test may patch its names freely)."""
    spec = importlib.util.spec_from_file_location("dev_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
