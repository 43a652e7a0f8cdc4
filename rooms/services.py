"""Writes of rooms: open, join, leave, ready, start, finish, tidy.

Every change to a room is made under ``SELECT … FOR UPDATE`` of its row, so two starts
(the host's and the last "ready", or two clicks) serialize and the second finds the room
started. Watchers hear of a change only after its commit (``transaction.on_commit`` and
core.live). The race itself is played through the games API: its attempts are
practice attempts bound to the room (games' ``attempts_start_race``).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.live import broadcast
from games.services.attempts import (
    attempts_close_time_up,
    attempts_start_race,
    attempts_unseal,
)
from games.services.practice_deals import race_deal_claim
from rooms.errors import (
    AlreadyReadyError,
    NotHostError,
    NotSeatedError,
    RoomFullError,
    RoomNotFoundError,
    RoomStartedError,
    TooFewRacersError,
)
from rooms.models import COUNTDOWN_SECONDS, Room, Seat
from rooms.selectors import LOBBY_GROUP, group_name, lobby_payload, room_public

log = logging.getLogger(__name__)


def _push_room_on_commit(room_id: int) -> None:
    """After the commit, every watcher gets the room as committed (no card in it), and the
    room list's watchers the list, when the room is public (it may have joined or left it)."""

    def push() -> None:
        room = Room.objects.select_related("host").get(pk=room_id)
        broadcast(group_name(room.code), "room.update", room_public(room))
        if room.public:
            broadcast(LOBBY_GROUP, "rooms.update", lobby_payload())

    transaction.on_commit(push)


def _locked(code: str) -> Room:
    room = Room.objects.select_for_update(of=("self",)).filter(code=code).first()
    if room is None:
        raise RoomNotFoundError("No such room.")
    return room


def _seat_of(room: Room, player: Any) -> Seat:
    seat = Seat.objects.filter(room=room, player=player).first()
    if seat is None:
        raise NotSeatedError("You have no seat in this room: join it first.")
    return seat


def _still_open(room: Room) -> None:
    if room.status == Room.Status.CLOSED:
        raise RoomStartedError("This room is closed.")
    if room.status != Room.Status.LOBBY:
        raise RoomStartedError("This room's race has started: it takes no more changes.")


def room_create(
    *, host: Any, variant: str, seats: int, public: bool, time_limit_minutes: int
) -> Room:
    with transaction.atomic():
        room = Room.objects.create(
            code=secrets.token_hex(6),
            host=host,
            variant=variant,
            seats=seats,
            public=public,
            time_limit_minutes=time_limit_minutes,
        )
        Seat.objects.create(room=room, player=host)
        _push_room_on_commit(room.pk)
    log.info("room %s opened (%s, %s seats)", room.code, variant, seats)
    return room


def room_join(*, code: str, player: Any) -> Room:
    """Take a seat (joining a room one already sits in changes nothing)."""
    with transaction.atomic():
        room = _locked(code)
        if Seat.objects.filter(room=room, player=player).exists():
            return room
        _still_open(room)
        if Seat.objects.filter(room=room).count() >= room.seats:
            raise RoomFullError(
                f"This room is full ({room.seats} seats).", details={"seats": room.seats}
            )
        Seat.objects.create(room=room, player=player)
        if room.emptied_at is not None:
            room.emptied_at = None
            room.save(update_fields=["emptied_at"])
        _push_room_on_commit(room.pk)
    return room


def room_leave(*, code: str, player: Any, now: dt.datetime | None = None) -> Room:
    """Give up one's seat before the start (after it, resign the attempt instead). A host
    who leaves hands the room to the next seat; a room left empty is closed by the beat."""
    with transaction.atomic():
        room = _locked(code)
        seat = _seat_of(room, player)
        if room.status != Room.Status.LOBBY:
            raise RoomStartedError(
                "The race has started: resign your attempt instead of leaving the room."
            )
        seat.delete()
        others = Seat.objects.filter(room=room).order_by("joined_at", "pk")
        following = others.first()
        if following is None:
            room.emptied_at = now or timezone.now()
        elif room.host_id == player.pk:
            room.host_id = following.player_id
        room.save(update_fields=["host", "emptied_at"])
        _push_room_on_commit(room.pk)
    return room


def room_ready(*, code: str, player: Any, now: dt.datetime | None = None) -> Room:
    """Mark one's seat ready; the race starts when every seat present (two or more) is."""
    with transaction.atomic():
        room = _locked(code)
        seat = _seat_of(room, player)
        _still_open(room)
        if seat.ready:
            raise AlreadyReadyError("You are ready already.")
        seat.ready = True
        seat.save(update_fields=["ready"])
        seats = list(Seat.objects.filter(room=room))
        if len(seats) >= 2 and all(s.ready for s in seats):
            _start(room, seats, now or timezone.now())
        _push_room_on_commit(room.pk)
    return room


def room_start(*, code: str, player: Any, now: dt.datetime | None = None) -> Room:
    """The host starts the race with the seats present, ready or not (two at least)."""
    with transaction.atomic():
        room = _locked(code)
        _still_open(room)
        if room.host_id != player.pk:
            raise NotHostError("Only the room's host can start the race.")
        seats = list(Seat.objects.filter(room=room))
        if len(seats) < 2:
            raise TooFewRacersError("A race needs two racers at least: wait for someone to join.")
        _start(room, seats, now or timezone.now())
        _push_room_on_commit(room.pk)
    return room


def _start(room: Room, seats: list[Seat], now: dt.datetime) -> None:
    """Deal (a verified practice deal none of the racers has played, nobody has open in
    practice and no other race holds) and give every seat an attempt whose clock starts at
    the same instant, ``COUNTDOWN_SECONDS`` from now."""
    players = [seat.player_id for seat in seats]
    deal = race_deal_claim(variant=room.variant, racers=players)  # refusal: nothing stored
    starts_at = now + dt.timedelta(seconds=COUNTDOWN_SECONDS)
    ends_at = starts_at + dt.timedelta(minutes=room.time_limit_minutes)
    attempts = attempts_start_race(
        players=[seat.player for seat in seats], deal=deal, starts_at=starts_at, play_until=ends_at
    )
    for seat, attempt in zip(seats, attempts, strict=True):
        seat.attempt = attempt
        seat.save(update_fields=["attempt"])
    room.status = Room.Status.RACING
    room.deal = deal
    room.starts_at = starts_at
    room.ends_at = ends_at
    room.save(update_fields=["status", "deal", "starts_at", "ends_at"])
    log.info("room %s: race of %s starts at %s", room.code, len(seats), starts_at.isoformat())


def room_finish_if_over(*, room_id: int, now: dt.datetime | None = None) -> bool:
    """End the race when every racer has won or resigned: its attempts' cards become
    public (for everyone at once) and the watchers get the final room. Safe twice."""
    with transaction.atomic():
        room = Room.objects.select_for_update(of=("self",)).filter(pk=room_id).first()
        if room is None or room.status != Room.Status.RACING:
            return False
        attempt_ids = list(
            Seat.objects.filter(room=room, attempt__isnull=False).values_list(
                "attempt_id", flat=True
            )
        )
        still_playing = Seat.objects.filter(room=room, attempt__ended_at__isnull=True).exists()
        if still_playing:
            return False
        room.status = Room.Status.FINISHED
        room.finished_at = now or timezone.now()
        room.save(update_fields=["status", "finished_at"])
        attempts_unseal(attempt_ids=attempt_ids)
        _push_room_on_commit(room.pk)
    log.info("room %s: race over", room.code)
    return True


def room_end_if_due(*, room: Room, now: dt.datetime | None = None) -> Room:
    """Past its time limit, resign the racers still playing and end the race (as a read of
    the room, and the beat, find it)."""
    now = now or timezone.now()
    if room.status != Room.Status.RACING or room.ends_at is None or now < room.ends_at:
        return room
    attempt_ids = list(
        Seat.objects.filter(room=room, attempt__isnull=False).values_list("attempt_id", flat=True)
    )
    attempts_close_time_up(attempt_ids=attempt_ids, now=now)
    room_finish_if_over(room_id=room.pk, now=now)
    room.refresh_from_db()
    return room


def rooms_tidy(*, now: dt.datetime | None = None) -> dict[str, int]:
    """The beat's job: close rooms left empty, end races past their time limit."""
    now = now or timezone.now()
    closed = 0
    empty = Room.objects.filter(
        status=Room.Status.LOBBY, seat_set__isnull=True, emptied_at__isnull=False
    )
    for code in empty.values_list("code", flat=True):
        with transaction.atomic():
            room = _locked(code)  # re-checked under the lock: someone may just have joined
            if room.status == Room.Status.LOBBY and not Seat.objects.filter(room=room).exists():
                room.status = Room.Status.CLOSED
                room.save(update_fields=["status"])
                _push_room_on_commit(room.pk)
                closed += 1
    ended = 0
    for room in Room.objects.filter(status=Room.Status.RACING, ends_at__lte=now).order_by("pk"):
        if room_end_if_due(room=room, now=now).status == Room.Status.FINISHED:
            ended += 1
    return {"closed": closed, "ended": ended}
