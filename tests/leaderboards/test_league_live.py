"""A league's live board over WebSockets (ws/challenges/<id>/leagues/<league_id>/): the
league's rows only, pushed after the commit once per window for all its watchers; members
only. On the real Redis channel layer (REDIS_URL), like the day's board in test_live.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from leaderboards import live
from leaderboards.leagues import live as league_live
from leaderboards.leagues import watched
from leaderboards.leagues.services import league_create, league_join
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import finish, make_attempt, progress
from tests.leaderboards.live_support import (
    LIVE_SOCKET_TEST,
    connected,
    db,
    drain,
    next_of,
    watch_path,
)

pytestmark = [*LIVE_SOCKET_TEST, pytest.mark.redis]


def cookie_of(player: Any) -> str:
    client = Client()
    client.force_login(player)
    return str(client.cookies["sessionid"].value)


def league_path(challenge_id: int, league_id: int) -> str:
    return f"/ws/challenges/{challenge_id}/leagues/{league_id}/"


async def watch_league(
    challenge_id: int, league_id: int, cookie: str
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    return await watch_path(league_path(challenge_id, league_id), cookie)


def league_of(*players: Any, name: str = "Friends") -> int:
    league = league_create(owner=players[0], name=name)
    for player in players[1:]:
        league_join(player=player, code=league.invite_code)
    return league.pk


async def test_a_league_watcher_gets_the_league_rows_and_its_members_pushes_only() -> None:
    challenge = await db(make_challenge)()
    ann, bob, zed = [await db(make_player)(name) for name in ("ann", "bob", "zed")]
    league_id = await db(league_of)(ann, bob)
    await db(make_attempt)(challenge, zed, score=900, won=True)  # outside the league
    await db(make_attempt)(challenge, ann, score=300)
    bobs = await db(make_attempt)(challenge, bob, ended_at=None)
    communicator, snapshot = await watch_league(challenge.pk, league_id, await db(cookie_of)(ann))

    assert snapshot["league"] == {"id": league_id, "name": "Friends"}
    assert [(r["rank"], r["username"]) for r in snapshot["top"]] == [(1, "ann")]
    assert snapshot["me"]["rank"] == 1
    assert snapshot["counts"] == {"playing": 1, "finished": 1}
    assert [row["username"] for row in snapshot["playing"]] == ["bob"]

    await db(progress)(bobs, runs=2, actions=30, deals_left=3)
    pushed = await next_of(communicator, "progress")
    assert [row["username"] for row in pushed["players"]] == ["bob"]
    assert pushed["counts"] is None  # the day's counts: not the league's
    await db(finish)(bobs, score=500, won=True)
    board = await next_of(communicator, "board")

    assert board["league_id"] == league_id
    assert [(r["rank"], r["username"]) for r in board["top"]] == [(1, "bob"), (2, "ann")]
    assert board["counts"] == {"playing": 0, "finished": 2}
    assert board["me"]["username"] == "ann" and board["me"]["rank"] == 2

    # An outsider's progress and finish: nothing of theirs reaches the league's watcher.
    late = await db(make_attempt)(challenge, await db(make_player)("yan"), ended_at=None)
    await db(progress)(late, runs=1, actions=10, deals_left=4)
    await db(finish)(late, score=999, won=True)
    messages = await drain(communicator)
    assert "yan" not in json.dumps(messages)
    for message in messages:  # the league's boards, and (coalesced) its members' progress
        assert message["type"] in ("board", "progress"), message
        if message["type"] == "board":
            assert message["league_id"] == league_id
        else:
            assert {row["username"] for row in message["players"]} <= {"ann", "bob"}
    await communicator.disconnect()


async def test_one_board_per_window_for_every_watcher_of_the_league(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    challenge = await db(make_challenge)()
    players = [await db(make_player)(f"m{n}") for n in range(4)]
    other = [await db(make_player)(f"o{n}") for n in range(2)]
    league_id = await db(league_of)(*players)
    other_league = await db(league_of)(*other, name="Others")
    calls: list[int] = []
    real = live.league_board_payloads

    def counted(challenge_id: int) -> Any:
        calls.append(challenge_id)
        return real(challenge_id)

    monkeypatch.setattr(live, "league_board_payloads", counted)
    monkeypatch.setattr(league_live, "LEAGUE_LIVE_TOP", 2)  # m0 and m1 end below the top
    watchers = [
        (await watch_league(challenge.pk, league_id, await db(cookie_of)(player)))[0]
        for player in players[:3]
    ]
    outsider, _ = await watch_league(challenge.pk, other_league, await db(cookie_of)(other[0]))
    attempts = [await db(make_attempt)(challenge, p, ended_at=None) for p in players]
    for n, attempt in enumerate(attempts):  # four finishes within one window
        await db(finish)(attempt, score=100 + n)

    boards = [await next_of(w, "board") for w in watchers]

    assert calls == [challenge.pk]  # one flush computed every watched league's board
    tops = [[row["username"] for row in board["top"]] for board in boards]
    assert tops == [["m3", "m2"]] * 3
    assert [(board["me"]["username"], board["me"]["rank"]) for board in boards] == [
        ("m0", 4),
        ("m1", 3),
        ("m2", 2),
    ]
    assert all(board["counts"]["finished"] == 4 for board in boards)
    elsewhere = await next_of(outsider, "board")  # its own league's board: empty
    assert elsewhere["top"] == [] and elsewhere["me"] is None
    for communicator in [*watchers, outsider]:
        await communicator.disconnect()


async def test_non_members_anonymous_and_unknown_leagues_are_closed_with_4404() -> None:
    challenge = await db(make_challenge)()
    owner, stranger = await db(make_player)("owner"), await db(make_player)("stranger")
    league_id = await db(league_of)(owner)
    for target, cookie in (
        (league_id, await db(cookie_of)(stranger)),
        (league_id, None),
        (987654, await db(cookie_of)(owner)),
    ):
        communicator = await connected(league_path(challenge.pk, target), cookie)
        assert await communicator.receive_output(timeout=5) == {
            "type": "websocket.close",
            "code": 4404,
        }
        await communicator.wait()
    assert await db(watched.watched_leagues)(challenge.pk) == []


async def test_a_ping_keeps_the_league_watched() -> None:
    challenge = await db(make_challenge)()
    owner = await db(make_player)("owner")
    league_id = await db(league_of)(owner)
    communicator, _ = await watch_league(challenge.pk, league_id, await db(cookie_of)(owner))
    assert await db(watched.watched_leagues)(challenge.pk) == [league_id]
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    assert await db(watched.watched_leagues)(challenge.pk) == [league_id]
    await communicator.disconnect()
