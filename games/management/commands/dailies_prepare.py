"""Fill today's (and the next days') dailies and the practice pools, in this process.

The embedded run calls it at start-up, with no worker: each candidate deal is solved here
and a progress line is printed as it goes. With workers, the beat task does the same job.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from games import solver
from games.models import Deal
from games.services.dailies import dailies_prepare
from games.services.deals import deal_verify


class Command(BaseCommand):
    help = "Verify deals and schedule the dailies in this process (no Celery worker needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=settings.DAILY_DAYS_AHEAD,
            help="days to fill, today included (default: %(default)s)",
        )
        parser.add_argument(
            "--practice",
            type=int,
            default=settings.PRACTICE_POOL_SIZE,
            help="verified practice deals to keep per variant (default: %(default)s)",
        )
        parser.add_argument(
            "--seconds",
            type=float,
            default=settings.SOLVER_SECONDS,
            help="solver limit per deal (default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds = options["seconds"]

        def verify_here(deal_id: int) -> None:
            deal = Deal.objects.get(pk=deal_id)
            started = time.monotonic()
            self.stdout.write(f"verifying deal {deal_id} ({deal.variant}, {deal.pool})…")

            def progress(report: solver.Progress) -> None:
                self.stdout.write(
                    f"  deal {deal_id}: {report.nodes} positions searched, {report.seconds:.0f} s"
                )

            deal = deal_verify(deal_id=deal_id, seconds=seconds, progress=progress)
            took = time.monotonic() - started
            self.stdout.write(
                f"  deal {deal_id}: {deal.status} in {took:.1f} s"
                + (f", par {deal.par}" if deal.par else "")
            )

        report = dailies_prepare(
            enqueue=verify_here,
            days=options["days"],
            practice_size=options["practice"],
            max_rounds=10,
        )
        self.stdout.write(self.style.SUCCESS(f"dailies prepared: {report.summary()}"))
        if report.missing:
            missing = ", ".join(f"{variant} {date}" for date, variant in report.missing)
            self.stderr.write(f"still without a verified deal: {missing}")
