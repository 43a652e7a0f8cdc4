from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from games import signals
        from leaderboards import receivers

        _receive_within_the_redis_socket_timeout()

        signals.attempt_progressed.connect(
            receivers.on_attempt_progressed, dispatch_uid="leaderboards.progressed"
        )
        signals.attempt_finished.connect(
            receivers.on_attempt_finished, dispatch_uid="leaderboards.finished"
        )
        signals.attempt_voided.connect(
            receivers.on_attempt_voided, dispatch_uid="leaderboards.voided"
        )


def _receive_within_the_redis_socket_timeout() -> None:
    """channels-redis waits 5 s in BZPOPMIN for a consumer's messages, and redis-py 8 gives
    every socket read a 5 s timeout by default: when the two race, the read times out and
    the watcher's socket is closed. Waiting less than the socket timeout avoids the race.
    (The fix belongs in the channel layer's settings, which are plain URLs here.)
    """
    try:
        from channels_redis.core import RedisChannelLayer
        from redis._defaults import DEFAULT_SOCKET_TIMEOUT
    except ImportError:  # pragma: no cover - an older redis-py had no default timeout
        return
    if RedisChannelLayer.brpop_timeout >= DEFAULT_SOCKET_TIMEOUT:
        RedisChannelLayer.brpop_timeout = max(1, int(DEFAULT_SOCKET_TIMEOUT) // 2)
