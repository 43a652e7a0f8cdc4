"""The project's settings in a worker or beat subprocess whose clock the test shifts
(tests/shifted_clock.py): ``DJANGO_SETTINGS_MODULE=tests.clock_settings``."""

from config.settings import *  # noqa: F403
from tests.shifted_clock import shift_from_environment

shift_from_environment()
