from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from core.metrics import add_collector
        from games.metrics import DealFigures
        from games.models import Attempt
        from games.services.board_counts import on_attempt_deleted

        # The deals' figures, read at each scrape of /metrics/ (core/metrics_view.py).
        add_collector(DealFigures())

        # Every other write of a board's attempt is a service's, which moves the counts
        # itself; a deletion cascades from its player's account (games/services/board_counts.py).
        post_delete.connect(on_attempt_deleted, sender=Attempt, dispatch_uid="board_counts.deleted")
