"""The Celery app 'astrocyte', configured from Django settings named CELERY_*.

Worker: `celery -A config worker`; scheduler (exactly one): `celery -A config beat`.
"""

import os
from typing import Any

from celery import Celery
from celery.signals import beat_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("astrocyte")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


PREPARE_TASK = "games.dailies_prepare"


@beat_init.connect
def prepare_when_beat_starts(sender: Any, **kwargs: Any) -> None:
    """Beat first runs an interval entry one interval after it starts: a fresh stack would
    wait DAILIES_PREPARE_EVERY (600 s) for its first daily. So beat sends the preparation
    once as it starts (idempotent: it fills only what is missing), and the workers prove
    today's daily within seconds (docs/operations.md)."""
    sender.app.send_task(PREPARE_TASK)
