from django.urls import path

from frontend import app_shell, views

app_name = "frontend"

urlpatterns = [
    path("", views.index, name="index"),
    path("manifest.webmanifest", app_shell.manifest, name="manifest"),
    path("service-worker.js", app_shell.service_worker, name="service-worker"),
    path("offline/", app_shell.offline, name="offline"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("play/<int:challenge_id>/", views.play, name="play"),
    path("practice/", views.practice, name="practice"),
    path("archive/", views.archive, name="archive"),
    path("archive/<int:challenge_id>/", views.archive_day, name="archive-day"),
    path("replay/<int:attempt_id>/", views.replay, name="replay"),
    path("challenges/<int:challenge_id>/replays/", views.challenge_replays, name="replays"),
    path("leaderboards/alltime/", views.leaderboard_alltime, name="leaderboard-alltime"),
    path("leaderboards/streaks/", views.leaderboard_streaks, name="leaderboard-streaks"),
    path("leaderboards/ratings/", views.leaderboard_ratings, name="leaderboard-ratings"),
    path("leaderboards/<int:challenge_id>/", views.leaderboard_day, name="leaderboard"),
    path("players/<str:username>/", views.player, name="player"),
    path("leagues/", views.leagues, name="leagues"),
    path("leagues/<int:league_id>/", views.league, name="league"),
    path("leagues/join/<str:code>/", views.league_join, name="league-join"),
    path("rules/", views.rules, name="rules"),
    path("rooms/", views.rooms, name="rooms"),
    path("rooms/<str:code>/", views.room, name="room"),
]
