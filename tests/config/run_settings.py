"""The settings of `scripts/dev.py run`'s server as the tests start it: the project's, with
the static files collected into the test's own folder (``TEST_STATIC_ROOT``) and a URL that
fails on purpose (tests/config/run_urls.py)."""

import os
from pathlib import Path

from config.settings import *  # noqa: F403

STATIC_ROOT = Path(os.environ["TEST_STATIC_ROOT"])
ROOT_URLCONF = "tests.config.run_urls"
