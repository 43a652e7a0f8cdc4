"""The browser tests' server: the project's settings, with the static files served from the
apps' own directories only. A ``staticfiles/`` left in the tree by an earlier collectstatic
would otherwise be served first (WhiteNoise reads STATIC_ROOT before the finders), and the
tests would drive stale copies of the client."""

from config.settings import *  # noqa: F403

STATIC_ROOT = None  # type: ignore[assignment]
