"""API routes of leagues, mounted under /api/v1/leagues/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path

from leaderboards.leagues import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("", api.LeaguesApi.as_view(), name="leagues"),
    path("join/", api.LeagueJoinApi.as_view(), name="leagues-join"),
    path("invites/<str:code>/", api.LeagueInviteLookupApi.as_view(), name="leagues-invite-lookup"),
    path("<int:league_id>/", api.LeagueDetailApi.as_view(), name="leagues-detail"),
    path("<int:league_id>/invite/", api.LeagueInviteApi.as_view(), name="leagues-invite"),
    path("<int:league_id>/leave/", api.LeagueLeaveApi.as_view(), name="leagues-leave"),
    path("<int:league_id>/owner/", api.LeagueOwnerApi.as_view(), name="leagues-owner"),
    path(
        "<int:league_id>/members/<str:username>/",
        api.LeagueMemberApi.as_view(),
        name="leagues-member",
    ),
    path(
        "<int:league_id>/challenges/<int:challenge_id>/",
        api.LeagueDayBoardApi.as_view(),
        name="leagues-board-challenge",
    ),
    path("<int:league_id>/alltime/", api.LeagueAllTimeApi.as_view(), name="leagues-alltime"),
    path("<int:league_id>/streaks/", api.LeagueStreakBoardApi.as_view(), name="leagues-streaks"),
]
