"""The browser tests' server settings, with the clock the test shifts (tests/shifted_clock.py)."""

from tests.frontend.server_settings import *  # noqa: F403
from tests.shifted_clock import shift_from_environment

shift_from_environment()
