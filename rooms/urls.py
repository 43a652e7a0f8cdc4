"""API routes of the rooms app, mounted under /api/v1/rooms/ by config/urls.py."""

from django.urls import URLPattern, URLResolver, path

from rooms import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("", api.RoomListApi.as_view(), name="rooms"),
    path("<str:code>/", api.RoomDetailApi.as_view(), name="room-detail"),
    path("<str:code>/join/", api.RoomJoinApi.as_view(), name="room-join"),
    path("<str:code>/leave/", api.RoomLeaveApi.as_view(), name="room-leave"),
    path("<str:code>/ready/", api.RoomReadyApi.as_view(), name="room-ready"),
    path("<str:code>/start/", api.RoomStartApi.as_view(), name="room-start"),
    path("<str:code>/reveal/", api.RoomRevealApi.as_view(), name="room-reveal"),
    path("<str:code>/solution/", api.RoomSolutionApi.as_view(), name="room-solution"),
    path(
        "<str:code>/racers/<str:username>/replay/",
        api.RoomReplayApi.as_view(),
        name="room-replay",
    ),
]
