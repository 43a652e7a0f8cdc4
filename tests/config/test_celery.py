import pytest

from config.celery import app
from games.tasks import ping
from tests.celery_worker import CeleryWorker


def test_celery_app_reads_django_settings() -> None:
    from django.conf import settings

    assert app.main == "astrocyte"
    assert app.conf.broker_url == settings.CELERY_BROKER_URL
    assert app.conf.task_always_eager == settings.CELERY_TASK_ALWAYS_EAGER
    assert "games.ping" in app.tasks


def test_ping_task_runs_in_process() -> None:
    assert ping.apply().get(timeout=5) == "pong"


@pytest.mark.celery
@pytest.mark.redis
def test_ping_round_trip_through_a_real_worker(celery_worker: CeleryWorker) -> None:
    result = ping.delay()
    assert result.get(timeout=celery_worker.timeout) == "pong"
    assert "games.ping" in celery_worker.log()
    assert celery_worker.process.poll() is None
