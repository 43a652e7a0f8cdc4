from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # The games services' refusals (games/errors.py) become the API's one error shape;
        # each error carries its own code and HTTP status.
        from core.api_errors import register_domain_error
        from games.errors import GamesError

        register_domain_error(GamesError, http_status=400, code="games_error", from_attributes=True)
