"""What every app builds on and no app owns: the API's one error shape and its handler,
rate limits, the shared Redis cache client, rows read by hand-written SQL.

Below the apps: imports Django, DRF, drf-spectacular and redis, never an app or config
(pyproject.toml's import-linter contracts check it).
"""
