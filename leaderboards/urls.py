"""API routes of this app, mounted under /api/v1/leaderboards/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, include, path

from leaderboards import api, archive_api, player_api

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "challenges/<int:challenge_id>/",
        api.ChallengeBoardApi.as_view(),
        name="leaderboard-challenge",
    ),
    path(
        "attempts/<int:attempt_id>/would-rank/",
        archive_api.WouldRankApi.as_view(),
        name="leaderboard-would-rank",
    ),
    path("alltime/", api.AllTimeBoardApi.as_view(), name="leaderboard-alltime"),
    path("streaks/", api.StreakBoardApi.as_view(), name="leaderboard-streaks"),
    path("ratings/", include("leaderboards.ratings.urls")),
    path("players/<str:username>/", player_api.PlayerStatsApi.as_view(), name="leaderboard-player"),
    path("profile/", player_api.PlayerProfileApi.as_view(), name="leaderboard-profile"),
]
