from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_init, post_save, pre_save

        from games import signals
        from games.models import Attempt
        from leaderboards import receivers, tally

        # The board counts follow every ORM write of an attempt (leaderboards/tally.py).
        post_init.connect(tally.remember_key, sender=Attempt, dispatch_uid="tally.init")
        pre_save.connect(tally.on_saving, sender=Attempt, dispatch_uid="tally.saving")
        post_save.connect(tally.on_saved, sender=Attempt, dispatch_uid="tally.saved")
        post_delete.connect(tally.on_deleted, sender=Attempt, dispatch_uid="tally.deleted")

        signals.attempt_progressed.connect(
            receivers.on_attempt_progressed, dispatch_uid="leaderboards.progressed"
        )
        signals.attempt_finished.connect(
            receivers.on_attempt_finished, dispatch_uid="leaderboards.finished"
        )
        signals.attempt_voided.connect(
            receivers.on_attempt_voided, dispatch_uid="leaderboards.voided"
        )
