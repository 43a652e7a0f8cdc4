"""What every app builds on and no app owns: the API's one error shape and its handler,
rate limits, the shared Redis cache client, rows read by hand-written SQL, and the live
fan-out from a commit to the watchers' sockets (``core.live``, one face for the apps).

Below the apps: imports libraries (Django, DRF, Channels, channels-redis, redis, psycopg,
prometheus-client…), never an app or config (pyproject.toml's import-linter contracts
check it).
"""
