"""Astrocyte Daily's game app.

This package must stay free of Django imports: `games.engine` (and later
`games.solver`) are pure Python and are imported without Django configured.
Django code lives in the app's modules (apps, models, admin, tasks, …).
"""
