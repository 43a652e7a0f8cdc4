"""API routes of this app, mounted under /api/v1/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path

from games.api import archive, attempts, challenges, replays

urlpatterns: list[URLPattern | URLResolver] = [
    path("challenges/today/", challenges.ChallengesTodayApi.as_view(), name="challenges-today"),
    path(
        "challenges/<int:challenge_id>/",
        challenges.ChallengeDetailApi.as_view(),
        name="challenge-detail",
    ),
    path(
        "challenges/<int:challenge_id>/attempts/",
        challenges.ChallengeAttemptsApi.as_view(),
        name="challenge-attempts",
    ),
    path(
        "challenges/<int:challenge_id>/start/",
        challenges.ChallengeStartApi.as_view(),
        name="challenge-start",
    ),
    path(
        "challenges/<int:challenge_id>/solution/",
        replays.ChallengeSolutionApi.as_view(),
        name="challenge-solution",
    ),
    path(
        "challenges/<int:challenge_id>/practice/",
        archive.ArchiveStartApi.as_view(),
        name="archive-start",
    ),
    path("archive/", archive.ArchiveMonthApi.as_view(), name="archive-month"),
    path("practice/start/", challenges.PracticeStartApi.as_view(), name="practice-start"),
    path("attempts/<int:attempt_id>/", attempts.AttemptDetailApi.as_view(), name="attempt-detail"),
    path(
        "attempts/<int:attempt_id>/actions/",
        attempts.AttemptActionsApi.as_view(),
        name="attempt-actions",
    ),
    path(
        "attempts/<int:attempt_id>/resign/",
        attempts.AttemptResignApi.as_view(),
        name="attempt-resign",
    ),
    path("attempts/<int:attempt_id>/hint/", attempts.AttemptHintApi.as_view(), name="attempt-hint"),
    path(
        "attempts/<int:attempt_id>/replay/",
        replays.AttemptReplayApi.as_view(),
        name="attempt-replay",
    ),
]
