"""Rebuild the ratings from the stored boards: ``manage.py ratings_recompute [--variant V]``.

Each variant in one transaction: its ratings, changes and rated days are deleted and its
closed days rated again in date order by the day-close job's own code, so the numbers are
the job's (tests/leaderboards/test_ratings.py).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import VARIANTS
from games.models import DailyChallenge
from leaderboards.ratings.services import ratings_recompute


class Command(BaseCommand):
    help = "Delete and rebuild every rating from the stored boards, in date order."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", help="only this variant (default: every variant)")

    def handle(self, *args: Any, **options: Any) -> None:
        variant = options.get("variant")
        if variant is not None and variant not in VARIANTS:
            raise CommandError(f"unknown variant {variant!r}: one of {', '.join(VARIANTS)}")
        variants = (
            [variant]
            if variant
            else sorted(set(DailyChallenge.objects.values_list("variant", flat=True)))
        )
        for name in variants:
            days = ratings_recompute(variant=name)
            self.stdout.write(f"{name}: {days} day(s) rated")
