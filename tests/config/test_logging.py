"""LOG_FORMAT: one line per event; with `json`, one JSON object per line (docs/metrics.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """
import logging
import django
django.setup()
logging.getLogger("games.services.deals").info("deal %s verified", 7, extra={"pool": "daily"})
logging.getLogger("uvicorn.error").info("Started server process [%d]", 42,
                                        extra={"color_message": "\\x1b[36m%d\\x1b[0m"})
try:
    {}["missing"]
except KeyError:
    logging.getLogger("games.tasks").exception("deal %s: the solver failed", 7)
"""


def log_of(log_format: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_FORMAT": log_format}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_json_logs_one_object_per_event_traceback_inside() -> None:
    done = log_of("json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]
    assert [r["message"] for r in records] == [
        "deal 7 verified",
        "Started server process [42]",
        "deal 7: the solver failed",
    ]
    assert [r["level"] for r in records] == ["INFO", "INFO", "ERROR"]
    assert records[0]["logger"] == "games.services.deals" and records[0]["pool"] == "daily"
    assert records[0]["time"].endswith("+00:00")
    assert "color_message" not in records[1]  # uvicorn's coloured copy of the message
    assert "KeyError: 'missing'" in records[2]["exc_info"]


def test_plain_logs_a_line_per_event_and_an_unknown_format_is_refused() -> None:
    plain = log_of("plain")
    assert plain.returncode == 0, plain.stderr
    assert " INFO games.services.deals: deal 7 verified" in plain.stderr.splitlines()[0]
    refused = log_of("xml")
    assert refused.returncode != 0
    assert "LOG_FORMAT must be plain or json, not 'xml'" in refused.stderr
