"""The Celery app 'astrocyte', configured from Django settings named CELERY_*.

Worker: `celery -A config worker`; scheduler (exactly one): `celery -A config beat`.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("astrocyte")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
