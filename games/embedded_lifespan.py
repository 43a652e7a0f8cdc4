"""The ASGI lifespan of the server process: in the embedded run, celery beat's jobs.

`scripts/dev.py run` serves with `uvicorn --lifespan on`; at start-up, when REDIS_URL is
unset (no broker, no worker, no beat: the embedded default), this starts the embedded beat
and its background verifier (games/embedded_beat.py), and stops them at shutdown. With
REDIS_URL set, `celery -A config beat` keeps the schedule and nothing starts here: the
embedded beat never runs beside a real one. Production (docker-compose.yml, `run --prod`)
serves with `--lifespan off`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings

from games.embedded_beat import EmbeddedBackground

log = logging.getLogger(__name__)


def start_background() -> EmbeddedBackground | None:
    if settings.REDIS_URL:
        log.info("REDIS_URL is set: celery beat keeps the schedule, not this process")
        return None
    background = EmbeddedBackground()
    background.start()
    log.info(
        "embedded beat started: %s",
        ", ".join(f"{job.entry} ({job.task})" for job in background.beat.jobs),
    )
    return background


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI lifespan protocol: start at ``startup``, stop at ``shutdown``."""
    background: EmbeddedBackground | None = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                background = start_background()
            except Exception as error:
                log.exception("embedded beat not started")
                await send({"type": "lifespan.startup.failed", "message": repr(error)})
                return
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if background is not None:
                await asyncio.to_thread(background.stop)
            await send({"type": "lifespan.shutdown.complete"})
            return
