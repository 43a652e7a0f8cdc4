from django.apps import AppConfig


class RoomsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"
    verbose_name = "Race rooms"

    def ready(self) -> None:
        from games import signals
        from rooms import receivers

        signals.attempt_played.connect(receivers.on_attempt_played, dispatch_uid="rooms.played")
        signals.attempt_finished.connect(
            receivers.on_attempt_finished, dispatch_uid="rooms.finished"
        )
