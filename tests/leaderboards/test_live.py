"""The live board over WebSockets: snapshot, pushes after the commit, ping, close codes.

These run on the configured channel layer: in memory by default, the real Redis layer when
REDIS_URL is set (the tests marked ``redis`` need it).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from core.live import wait_idle
from leaderboards import live
from tests.conftest import LIVE_SETTLE_SECONDS
from tests.dead_port import dead_port
from tests.factories import make_challenge, make_player
from tests.leaderboards.conftest import finish, make_attempt, progress, void
from tests.leaderboards.live_support import (
    LIVE_SOCKET_TEST,
    ORIGIN,
    assert_no_secret,
    db,
    drain,
    next_of,
    watch,
)

pytestmark = LIVE_SOCKET_TEST


async def test_snapshot_has_top_counts_progress_and_no_card() -> None:
    challenge = await db(make_challenge)()
    await db(make_attempt)(challenge, await db(make_player)("done"), score=320, runs=4)
    await db(make_attempt)(
        challenge, await db(make_player)("busy"), ended_at=None, runs=2, actions=77, deals_left=3
    )

    communicator, snapshot = await watch(challenge.pk)

    assert snapshot["challenge"] == {
        "id": challenge.pk,
        "date": challenge.date.isoformat(),
        "variant": "astrocyte",
        "face_down_dealt": 56,
    }
    assert [(r["rank"], r["username"], r["score"]) for r in snapshot["top"]] == [(1, "done", 320)]
    assert snapshot["counts"] == {"playing": 1, "finished": 1}
    [busy] = snapshot["playing"]
    assert (busy["username"], busy["runs_completed"], busy["action_count"]) == ("busy", 2, 77)
    assert busy["deals_left"] == 3 and busy["finished"] is False
    assert snapshot["me"] is None
    await communicator.disconnect()


async def test_a_board_reaches_watchers_while_the_sync_thread_is_busy() -> None:
    """A pushed board goes to each watcher without a trip through the process's one
    thread-sensitive executor (Channels' dispatch made one per watcher, so a fan-out waited
    behind any slow database read of the process, and behind itself, watcher by watcher)."""
    challenge = await db(make_challenge)()
    playing = await db(make_attempt)(challenge, await db(make_player)("dana"), ended_at=None)
    communicator, _ = await watch(challenge.pk)
    await db(finish)(playing, score=300)

    busy = asyncio.ensure_future(sync_to_async(time.sleep)(3.0))  # thread_sensitive
    try:
        board = await next_of(communicator, "board", timeout=2.0)
    finally:
        await busy
    assert [row["username"] for row in board["top"]] == ["dana"]
    await communicator.disconnect()


async def test_pushes_after_progress_finish_and_void() -> None:
    challenge = await db(make_challenge)()
    anna, ben = await db(make_player)("anna"), await db(make_player)("ben")
    first = await db(make_attempt)(challenge, anna, score=400)
    playing = await db(make_attempt)(challenge, ben, ended_at=None)
    communicator, _ = await watch(challenge.pk)

    await db(progress)(playing, runs=3, actions=55, deals_left=2)
    pushed = await next_of(communicator, "progress")
    assert pushed["players"] == [
        {
            "attempt_id": playing.pk,
            "username": "ben",
            "runs_completed": 3,
            "cards_turned_up": 0,
            "action_count": 55,
            "deals_left": 2,
            "finished": False,
        }
    ]

    await db(finish)(playing, score=450)
    board = await next_of(communicator, "board")
    assert [(r["rank"], r["username"]) for r in board["top"]] == [(1, "ben"), (2, "anna")]
    assert board["counts"] == {"playing": 0, "finished": 2}
    assert board["voided"] is None

    await db(void)(playing)
    board = await next_of(communicator, "board")
    assert board["voided"] == {"attempt_id": playing.pk, "username": "ben"}
    assert [(r["rank"], r["username"]) for r in board["top"]] == [(1, "anna")]
    assert first.pk == board["top"][0]["attempt_id"]
    await communicator.disconnect()


async def test_a_ranked_start_shows_the_new_player_among_those_playing() -> None:
    # Through the real service: the push goes out when the start commits.
    from games.services.attempts import attempt_start_ranked

    challenge = await db(make_challenge)()
    cleo = await db(make_player)("cleo")
    communicator, _ = await watch(challenge.pk)

    attempt, created = await db(attempt_start_ranked)(player=cleo, challenge_id=challenge.pk)

    assert created
    pushed = await next_of(communicator, "progress")
    (row,) = pushed["players"]
    assert row["attempt_id"] == attempt.pk
    assert row["username"] == "cleo"
    assert row["action_count"] == 0
    assert row["finished"] is False
    assert_no_secret(pushed)
    await communicator.disconnect()


async def test_every_accepted_move_reaches_the_players_list_within_the_window() -> None:
    """Not only deals and runs home: a plain move's action count is pushed too (with the
    challenge's next progress window), so "Playing now" matches the player's count."""
    from games.services.attempts import attempt_push_actions, attempt_start_ranked
    from tests.games.api_support import solution_of, todays_challenge

    challenge = await db(todays_challenge)()
    moves = await db(lambda: solution_of(challenge.deal))()
    plain = moves[: min(3, moves.index("deal"))]
    dora = await db(make_player)("dora")
    attempt, _ = await db(attempt_start_ranked)(player=dora, challenge_id=challenge.pk)
    communicator, _ = await watch(challenge.pk)

    await db(attempt_push_actions)(attempt_id=attempt.pk, player=dora, offset=0, actions=plain)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + live.PROGRESS_WINDOW_SECONDS + 4
    seen: list[int] = []
    while len(plain) not in seen:
        pushed = await next_of(communicator, "progress", timeout=deadline - loop.time())
        seen += [
            row["action_count"] for row in pushed["players"] if row["attempt_id"] == attempt.pk
        ]
    (row,) = [row for row in pushed["players"] if row["attempt_id"] == attempt.pk]
    assert row["deals_left"] == 5 and row["finished"] is False
    await communicator.disconnect()


async def test_voiding_an_open_attempt_takes_it_off_the_players_list() -> None:
    challenge = await db(make_challenge)()
    cheat, fair = await db(make_player)("cheat"), await db(make_player)("fair")
    suspect = await db(make_attempt)(challenge, cheat, ended_at=None)
    await db(make_attempt)(challenge, fair, ended_at=None)
    communicator, snapshot = await watch(challenge.pk)
    assert snapshot["counts"]["playing"] == 2

    await db(void)(suspect)
    board = await next_of(communicator, "board")
    assert board["voided"] == {"attempt_id": suspect.pk, "username": "cheat"}
    assert board["counts"] == {"playing": 1, "finished": 0}
    # Its later progress is not pushed, and a new watcher does not see it playing.
    await db(progress)(suspect, runs=1, actions=20, deals_left=4)
    later = await drain(communicator)
    assert [m for m in later if m["type"] == "progress"] == []
    await communicator.disconnect()
    again, snapshot = await watch(challenge.pk)
    assert [row["username"] for row in snapshot["playing"]] == ["fair"]
    await again.disconnect()


async def test_practice_and_other_challenges_push_nothing_here() -> None:
    challenge = await db(make_challenge)()
    other = await db(make_challenge)(variant="spider4")
    communicator, _ = await watch(challenge.pk)
    elsewhere = await db(make_attempt)(other, await db(make_player)("far"), ended_at=None)
    await db(finish)(elsewhere, score=10)
    assert await drain(communicator) == []
    await communicator.disconnect()


async def test_ping_gets_pong_and_anything_else_closes_with_4400() -> None:
    challenge = await db(make_challenge)()
    for bad in ('{"type": "finish"}', "not json", '["ping"]', '{"type": "ping", "x": 1}'):
        communicator, _ = await watch(challenge.pk)
        await communicator.send_json_to({"type": "ping"})
        assert await communicator.receive_json_from() == {"type": "pong"}
        await communicator.send_to(text_data=bad)
        closed = await communicator.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4400}, bad
        await communicator.wait()
    communicator, _ = await watch(challenge.pk)
    await communicator.send_to(bytes_data=b"\x00")
    assert (await communicator.receive_output(timeout=5))["code"] == 4400
    await communicator.wait()


async def test_unknown_challenge_closes_with_4404() -> None:
    communicator = WebsocketCommunicator(application, "/ws/challenges/987654/", headers=[ORIGIN])
    connected, _ = await communicator.connect()
    assert connected  # accepted first, so that a browser sees the code
    assert await communicator.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": 4404,
    }
    await communicator.wait()


async def test_signed_in_watcher_gets_own_rank_even_outside_the_top() -> None:
    challenge = await db(make_challenge)()
    me = await db(make_player)("me")

    def setup() -> str:
        for n in range(live.LIVE_TOP + 2):
            make_attempt(challenge, make_player(f"p{n:02}"), score=900 - n)
        make_attempt(challenge, me, score=1)
        client = Client()
        client.force_login(me)
        return client.cookies["sessionid"].value

    cookie = await db(setup)()
    communicator, snapshot = await watch(challenge.pk, cookie=cookie)
    assert len(snapshot["top"]) == live.LIVE_TOP
    assert snapshot["me"]["username"] == "me" and snapshot["me"]["rank"] == live.LIVE_TOP + 3

    late = await db(make_attempt)(challenge, await db(make_player)("late"), ended_at=None)
    await db(finish)(late, score=5)
    board = await next_of(communicator, "board")
    assert board["me"]["username"] == "me"
    anonymous, snapshot = await watch(challenge.pk)
    assert snapshot["me"] is None
    await communicator.disconnect()
    await anonymous.disconnect()


async def test_two_watchers_both_receive() -> None:
    challenge = await db(make_challenge)()
    attempt = await db(make_attempt)(challenge, await db(make_player)("solo"), ended_at=None)
    first, _ = await watch(challenge.pk)
    second, _ = await watch(challenge.pk)
    await db(finish)(attempt, score=250)
    for communicator in (first, second):
        board = await next_of(communicator, "board")
        assert board["top"][0]["username"] == "solo"
        await communicator.disconnect()


async def test_a_burst_of_finishes_is_coalesced_and_the_last_board_is_right() -> None:
    challenge = await db(make_challenge)()

    def players() -> list[Any]:
        return [make_attempt(challenge, make_player(f"b{n:02}"), ended_at=None) for n in range(20)]

    attempts = await db(players)()
    communicator, _ = await watch(challenge.pk)

    def burst() -> None:
        for n, attempt in enumerate(attempts):
            finish(attempt, score=100 + n, elapsed=30)

    began = time.monotonic()
    await db(burst)()
    took = time.monotonic() - began
    # Every push the burst set off, the flushes of the windows it opened among them: until
    # the last board and progress rows say all twenty finished (the assertions below).

    def all_finished(messages: list[dict[str, Any]]) -> bool:
        boards = [m for m in messages if m["type"] == "board"]
        rows = [r for m in messages if m["type"] == "progress" for r in m["players"]]
        return (
            bool(boards)
            and boards[-1]["counts"]["finished"] == 20
            and (sum(1 for row in rows if row["finished"]) >= 20)
        )

    messages = await drain(communicator, until=all_finished)
    boards = [m for m in messages if m["type"] == "board"]
    # At most one board per window the burst spanned (on a loaded machine it spans more
    # than one), never one per finish.
    windows = math.ceil(took / live.BOARD_WINDOW_SECONDS) + 1
    assert 1 <= len(boards) <= min(windows, 10), ([len(b["top"]) for b in boards], took)
    last = boards[-1]
    assert [r["username"] for r in last["top"]] == [f"b{n:02}" for n in range(19, -1, -1)]
    assert [r["rank"] for r in last["top"]] == list(range(1, 21))
    assert last["counts"] == {"playing": 0, "finished": 20}
    # Every player leaves "playing" with the window's progress push, not one push each.
    pushes = [m for m in messages if m["type"] == "progress"]
    assert 1 <= len(pushes) <= 3
    finished = [row["username"] for m in pushes for row in m["players"] if row["finished"]]
    assert sorted(finished) == [f"b{n:02}" for n in range(20)]
    await communicator.disconnect()


@pytest.mark.redis
async def test_redis_outage_loses_no_action_and_pushes_resume(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    real_layers = settings.CHANNEL_LAYERS
    challenge = await db(make_challenge)()
    during = await db(make_attempt)(challenge, await db(make_player)("during"), ended_at=None)
    after = await db(make_attempt)(challenge, await db(make_player)("after"), ended_at=None)
    communicator, _ = await watch(challenge.pk)  # listening on the real Redis

    # Redis "goes away" for whoever broadcasts: a layer on a port where nothing listens.
    with dead_port() as port, caplog.at_level(logging.WARNING, logger="core.live.broadcasting"):
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "core.live.PubSubChannelLayer",
                "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"], "prefix": "asgi-outage"},
            }
        }
        await db(finish)(during, score=300)  # raises nothing
        assert await asyncio.to_thread(wait_idle, LIVE_SETTLE_SECONDS)  # its push has failed
    assert any("lost" in record.getMessage() for record in caplog.records)
    assert await db(lambda: type(during).objects.get(pk=during.pk).score)() == 300
    assert await drain(communicator) == []

    settings.CHANNEL_LAYERS = real_layers  # Redis is back
    await db(finish)(after, score=200)
    board = await next_of(communicator, "board")
    assert [r["username"] for r in board["top"]] == ["during", "after"]
    await communicator.disconnect()


async def test_the_days_close_is_pushed_to_its_watchers_with_nothing_but_the_fact() -> None:
    import datetime as dt

    from django.utils import timezone

    from games.models import Attempt
    from games.services.attempts import attempts_close_day
    from tests.games.api_support import playing, todays_challenge

    challenge = await db(todays_challenge)()
    tomorrow = timezone.now() + dt.timedelta(days=1)
    the_day_before = timezone.now().date() - dt.timedelta(days=1)
    others_day = await db(make_challenge)(date=the_day_before, variant="spider4")
    _, attempt = await db(playing)(challenge, 3)
    communicator, _ = await watch(challenge.pk)
    bystander, _ = await watch(others_day.pk)

    closed = await db(attempts_close_day)(now=tomorrow)

    assert closed == [attempt.pk]
    message = await next_of(communicator, "day_closed")
    assert message == {"type": "day_closed", "challenge_id": challenge.pk}
    assert (await db(Attempt.objects.get)(pk=attempt.pk)).end_reason == "day_closed"
    # Another day's watchers hear nothing of it.
    assert not [m for m in await drain(bystander) if m["type"] == "day_closed"]
    await communicator.disconnect()
    await bystander.disconnect()


async def test_the_days_close_is_pushed_even_when_a_page_closed_its_own_game_first() -> None:
    """At 00:00 a player's page asks for its game and so closes it (the close of a touched
    attempt) before the beat's close runs: the beat's close still tells every page of the
    day, the other variants' too, and the watchers of an earlier day hear nothing."""
    import datetime as dt

    from django.utils import timezone

    from games.models import Attempt
    from games.services.attempts import attempt_close_if_day_over, attempts_close_day
    from tests.games.api_support import playing, todays_challenge

    challenge = await db(todays_challenge)()
    same_day = await db(make_challenge)(variant="spider4")
    tomorrow = timezone.now() + dt.timedelta(days=1)
    earlier = await db(make_challenge)(
        date=timezone.now().date() - dt.timedelta(days=1), variant="spider1"
    )
    _, attempt = await db(playing)(challenge, 3)
    player_page, _ = await watch(challenge.pk)
    other_variant, _ = await watch(same_day.pk)
    earlier_days_page, _ = await watch(earlier.pk)

    await db(attempt_close_if_day_over)(attempt=attempt, now=tomorrow)
    assert (await db(Attempt.objects.get)(pk=attempt.pk)).end_reason == "day_closed"
    assert await db(attempts_close_day)(now=tomorrow) == []  # nothing left open

    message = await next_of(player_page, "day_closed")
    assert message == {"type": "day_closed", "challenge_id": challenge.pk}
    assert await next_of(other_variant, "day_closed") == {
        "type": "day_closed",
        "challenge_id": same_day.pk,
    }
    assert not [m for m in await drain(earlier_days_page) if m["type"] == "day_closed"]
    for page in (player_page, other_variant, earlier_days_page):
        await page.disconnect()
