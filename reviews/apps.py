from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    """Fair-play reviews: who plays from where, the scout's shape, the staff's queue."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = "Fair-play reviews"

    def ready(self) -> None:
        from accounts.signals import account_signed_in
        from games import signals
        from reviews import receivers

        account_signed_in.connect(receivers.on_account_signed_in, dispatch_uid="reviews.signed_in")
        signals.attempt_finished.connect(
            receivers.on_attempt_finished, dispatch_uid="reviews.finished"
        )
        signals.day_closed.connect(receivers.on_day_closed, dispatch_uid="reviews.day_closed")
