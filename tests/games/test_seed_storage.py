"""A deal's seed comes back from the database exactly, all 64 bits, on every backend: the
commitment published before the day must match the seed revealed after it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from games.models import Deal, commitment_for
from games.services.deals import deal_create
from tests.run_support import run_ok

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [0, 7, 7777777777777777771, 2**63 - 1, 2**63 + 12345, 2**64 - 1]

ROUND_TRIP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from games.models import Deal
from games.services.deals import deal_create
ids = [(seed, deal_create(variant="spider1", seed=seed).pk) for seed in SEEDS]
print([Deal.objects.get(pk=pk).seed_int == seed for seed, pk in ids])
"""


@pytest.mark.django_db
def test_seeds_round_trip_exactly_in_the_configured_database() -> None:
    for seed in SEEDS:
        deal = Deal.objects.get(pk=deal_create(variant="astrocyte", seed=seed).pk)
        assert deal.seed_int == seed
        assert deal.commitment == commitment_for("astrocyte", deal.seed_int, deal.nonce)


def test_seeds_round_trip_exactly_in_the_embedded_sqlite_database(tmp_path: Path) -> None:
    """The README's embedded run keeps its deals in SQLite, whatever the tests run on."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'embedded.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)
    script = f"SEEDS = {SEEDS!r}\n{ROUND_TRIP}"
    done = run_ok([sys.executable, "-c", script], env)
    assert done.stdout.strip().splitlines()[-1] == str([True] * len(SEEDS))
