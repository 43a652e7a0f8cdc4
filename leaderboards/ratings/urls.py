"""API routes of the ratings, included under /api/v1/leaderboards/ratings/ by
leaderboards/urls.py."""

from django.urls import URLPattern, URLResolver, path

from leaderboards.ratings import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("", api.RatingBoardApi.as_view(), name="leaderboard-ratings"),
    path(
        "attempts/<int:attempt_id>/",
        api.AttemptRatingApi.as_view(),
        name="leaderboard-attempt-rating",
    ),
]
