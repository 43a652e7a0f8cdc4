"""API routes of this app, mounted under /api/v1/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path
from rest_framework.views import APIView

from games.api import analysis, archive, attempts, challenges, replays

Route = tuple[str, type[APIView], str]  # (path under the prefix, view, URL name)


def under(prefix: str, routes: list[Route]) -> list[URLPattern | URLResolver]:
    return [path(f"{prefix}{suffix}", view.as_view(), name=name) for suffix, view, name in routes]


urlpatterns: list[URLPattern | URLResolver] = [
    *under(
        "challenges/",
        [
            ("today/", challenges.ChallengesTodayApi, "challenges-today"),
            ("<int:challenge_id>/", challenges.ChallengeDetailApi, "challenge-detail"),
            ("<int:challenge_id>/attempts/", challenges.ChallengeAttemptsApi, "challenge-attempts"),
            ("<int:challenge_id>/start/", challenges.ChallengeStartApi, "challenge-start"),
            ("<int:challenge_id>/solution/", replays.ChallengeSolutionApi, "challenge-solution"),
            ("<int:challenge_id>/practice/", archive.ArchiveStartApi, "archive-start"),
        ],
    ),
    path("archive/", archive.ArchiveMonthApi.as_view(), name="archive-month"),
    path("practice/start/", challenges.PracticeStartApi.as_view(), name="practice-start"),
    *under(
        "attempts/<int:attempt_id>/",
        [
            ("", attempts.AttemptDetailApi, "attempt-detail"),
            ("actions/", attempts.AttemptActionsApi, "attempt-actions"),
            ("resign/", attempts.AttemptResignApi, "attempt-resign"),
            ("hint/", attempts.AttemptHintApi, "attempt-hint"),
            ("autocomplete/", attempts.AttemptAutocompleteApi, "attempt-autocomplete"),
            ("replay/", replays.AttemptReplayApi, "attempt-replay"),
            ("analysis/", analysis.AttemptAnalysisApi, "attempt-analysis"),
        ],
    ),
]
