"""Fill today's (and the next days') dailies and the practice pools, in this process.

The embedded run calls it at start-up, with no worker: each candidate deal is solved here.
What happens is said once, by the services' own log lines (a deal created, its verification
started, the solver's progress, its outcome, the daily scheduled, the summary), in the
configured LOG_FORMAT: the command prints no second copy of them.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from games.services.dailies import dailies_prepare
from games.services.deals import deal_verify, progress_logger

log = logging.getLogger(__name__)


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
            help="solver time limit per deal, in seconds (default: %(default)s)",
        )
        parser.add_argument(
            "--nodes",
            type=int,
            default=settings.SOLVER_NODES,
            help="solver limit per deal, in positions; 0: none (default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds, nodes = options["seconds"], options["nodes"]

        def verify_here(deal_id: int) -> None:
            deal_verify(
                deal_id=deal_id, seconds=seconds, nodes=nodes, progress=progress_logger(deal_id)
            )

        report = dailies_prepare(
            enqueue=verify_here,
            days=options["days"],
            practice_size=options["practice"],
            max_rounds=10,
        )
        if report.missing:
            missing = ", ".join(f"{variant} {date}" for date, variant in report.missing)
            log.warning("still without a verified deal: %s", missing)
