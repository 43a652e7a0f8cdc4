from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from games import signals
        from leaderboards import receivers
        from leaderboards.ratings.receivers import on_attempt_voided_rate_again

        signals.attempt_progressed.connect(
            receivers.on_attempt_progressed, dispatch_uid="leaderboards.progressed"
        )
        signals.attempt_finished.connect(
            receivers.on_attempt_finished, dispatch_uid="leaderboards.finished"
        )
        signals.attempt_voided.connect(
            receivers.on_attempt_voided, dispatch_uid="leaderboards.voided"
        )
        signals.attempt_voided.connect(
            on_attempt_voided_rate_again, dispatch_uid="leaderboards.ratings.voided"
        )
        signals.day_closed.connect(receivers.on_day_closed, dispatch_uid="leaderboards.day_closed")
