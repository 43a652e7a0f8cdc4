"""Reads of rooms: what the API, the WebSocket and the tasks show. Never a card, except
``race_reveal`` once the race is over for every racer."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Count, QuerySet
from django.utils import timezone

from games import engine, ranking
from games.models import Attempt
from games.selectors import attempt_board, deal_board
from rooms.errors import RaceNotOverError, RoomNotFoundError
from rooms.models import Room, Seat

LIST_LIMIT = 50


LOBBY_GROUP = "rooms_lobby"  # the channel-layer group of the room list's watchers


def group_name(code: str) -> str:
    """The channel-layer group of a room's watchers."""
    return f"room_{code}"


def room_by_code(code: str) -> Room:
    room = Room.objects.select_related("host", "deal").filter(code=code).first()
    if room is None:
        raise RoomNotFoundError("No such room.")
    return room


def seats_of(room: Room) -> QuerySet[Seat]:
    return (
        Seat.objects.filter(room=room)
        .select_related("player", "attempt")
        .order_by("joined_at", "pk")
    )


def progress_of(attempt: Attempt | None) -> dict[str, Any] | None:
    """A racer's progress as the others see it: counts only, never a card."""
    if attempt is None:
        return None
    return {
        "action_count": attempt.action_count,
        "runs_completed": attempt.runs_completed,
        "cards_turned_up": attempt.cards_turned_up,
        "cards_home": 13 * attempt.runs_completed,
        "deals_left": attempt.deals_left,
        "finished": attempt.is_over,
        "won": attempt.won,
        "resigned": attempt.is_over and not attempt.won,
    }


def racer_row(seat: Seat, host_id: int) -> dict[str, Any]:
    return {
        "username": seat.player.get_username(),
        "host": seat.player_id == host_id,
        "ready": seat.ready,
        "progress": progress_of(seat.attempt),
    }


def room_public(room: Room, now: dt.datetime | None = None) -> dict[str, Any]:
    """The room as every watcher sees it (the WebSocket's ``room`` message)."""
    now = now or timezone.now()
    return {
        "type": "room",
        "code": room.code,
        "host": room.host.get_username(),
        "variant": room.variant,
        "seats": room.seats,
        "public": room.public,
        "time_limit_minutes": room.time_limit_minutes,
        "status": room.status,
        "starts_at": room.starts_at.isoformat() if room.starts_at else None,
        "ends_at": room.ends_at.isoformat() if room.ends_at else None,
        "finished_at": room.finished_at.isoformat() if room.finished_at else None,
        "server_now": now.isoformat(),
        "racers": [racer_row(seat, room.host_id) for seat in seats_of(room)],
    }


def room_detail(room: Room, viewer: Any, now: dt.datetime | None = None) -> dict[str, Any]:
    """``room_public`` and the viewer's own seat (their attempt's id once started)."""
    body = room_public(room, now)
    seat = None
    if getattr(viewer, "is_authenticated", False):
        seat = Seat.objects.filter(room=room, player=viewer).first()
    body["my_seat"] = (
        {"ready": seat.ready, "attempt_id": seat.attempt_id} if seat is not None else None
    )
    body["results"] = room_results(room) if room.status == Room.Status.FINISHED else None
    return body


def rooms_open(limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
    """The public rooms still taking seats, newest first."""
    rooms = (
        Room.objects.filter(status=Room.Status.LOBBY, public=True)
        .select_related("host")
        .order_by("-created_at")[:limit]
    )
    seated = {
        row["room_id"]: row["n"]
        for row in Seat.objects.filter(room__in=[room.pk for room in rooms])
        .values("room_id")
        .annotate(n=Count("pk"))
    }
    return [
        {
            "code": room.code,
            "host": room.host.get_username(),
            "variant": room.variant,
            "seats": room.seats,
            "taken": seated.get(room.pk, 0),
            "time_limit_minutes": room.time_limit_minutes,
            "created_at": room.created_at,
        }
        for room in rooms
    ]


def lobby_payload() -> dict[str, Any]:
    """What the room list's watchers get (ws/rooms/): the public rooms taking seats, as
    ``GET rooms/`` lists them."""
    rooms = [
        {**row, "created_at": row["created_at"].isoformat().replace("+00:00", "Z")}
        for row in rooms_open()
    ]
    return {"type": "rooms", "rooms": rooms}


def room_results(room: Room) -> list[dict[str, Any]]:
    """The order of finish with each racer's score parts (no card)."""
    seats = [seat for seat in seats_of(room) if seat.attempt is not None]
    # docs/rules.md's ranking: won, then progress, score, time, end; unranked (no action) last
    seats.sort(key=lambda seat: ranking.rank_key(seat.attempt))  # type: ignore[arg-type]
    rows = []
    for place, seat in enumerate(seats, start=1):
        attempt = seat.attempt
        assert attempt is not None
        board = attempt_board(attempt)
        parts = engine.score_breakdown(len(attempt.log), attempt.elapsed_seconds or 0.0, board)
        rows.append(
            {
                "place": place,
                "username": seat.player.get_username(),
                "won": attempt.won,
                "score": attempt.score,
                "score_parts": parts,
                "elapsed_seconds": attempt.elapsed_seconds,
                "action_count": attempt.action_count,
                "runs_completed": attempt.runs_completed,
                "cards_turned_up": attempt.cards_turned_up,
                "face_down_dealt": engine.face_down_dealt(board.variant),
                "end_reason": attempt.end_reason or None,
            }
        )
    return rows


def race_reveal(room: Room) -> dict[str, Any]:
    """Once the race is over for everyone: the whole deal, its solution, every racer's log."""
    race_reveal_allowed(room)
    deal = room.deal
    assert deal is not None
    return {
        "code": room.code,
        "variant": deal.variant,
        "cards_revealed": True,
        "start_state": engine.board_state(deal_board(deal)),
        "solution": list(deal.solution or []),
        "results": room_results(room),
        "racers": [
            {
                "username": seat.player.get_username(),
                "attempt_id": seat.attempt_id,
                "log": list(seat.attempt.log),
                "action_times": list(seat.attempt.action_times),
            }
            for seat in seats_of(room)
            if seat.attempt is not None
        ],
    }


def racer_attempt(room: Room, username: str) -> Attempt:
    """A racer's attempt in a finished race (for its replay)."""
    race_reveal_allowed(room)
    seat = seats_of(room).filter(player__username=username).first()
    if seat is None or seat.attempt is None:
        raise RoomNotFoundError(f"No racer {username!r} in this room.")
    attempt = seat.attempt
    attempt.deal = room.deal  # type: ignore[assignment]
    return attempt


def race_reveal_allowed(room: Room) -> None:
    if room.status != Room.Status.FINISHED or room.deal is None:
        raise RaceNotOverError(
            "The deal, its solution and the racers' games are public once the race is over "
            "for every racer."
        )
