"""A second account learns nothing of an open day's deal that it did not turn up itself.

Anyone can open a second account, start the daily, end that attempt at once and read
what the server then shows. So for every way an account can touch a daily (start,
actions, refused actions, resign, replay steps, hints, every leaderboard and player
read, the public log endpoints, every HTML page, the WebSocket snapshot and pushes), the
tests below play as such an account on an open day, collect everything it can reach,
and check that:

- every card code in it is one this account turned face up in its own attempt (computed
  here by the engine from the account's own log, independently of the API);
- every position in it is a view (face-down and stock cards null);
- the seed, the nonce and the stored solution appear nowhere, nor in the log lines.

They run for an attempt resigned at once, one resigned after some play, a won one, and
one left open until the day closes; after the close, everything is public exactly as
before: seed, nonce, the whole deal, the solution, every counted log.
"""

from __future__ import annotations

import datetime as dt
import logging
import logging.config
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from django.utils import timezone

from config.asgi import application
from games import engine
from games.models import Attempt, DailyChallenge
from games.services import plausibility
from games.services.deals import deal_schedule
from tests.factories import make_player, verified_deal
from tests.games.api_support import past_challenge_of
from tests.games.fair_play_support import (
    DEALS,
    ENDINGS,
    ORIGIN,
    Reached,
    assert_nothing_hidden,
    cards_seen,
    collect_reads,
    log_lines,
    play_as_second_account,
    play_socket_frames,
    post,
    signed_in,
    watch_while,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize(("variant", "seed"), DEALS, ids=[variant for variant, _ in DEALS])
def test_a_second_account_learns_only_the_cards_it_turned_up(
    variant: str, seed: int, ending: str, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    settings.METRICS_ENABLED, settings.METRICS_TOKEN = True, "t"
    deal = verified_deal(variant, seed)
    challenge = deal_schedule(deal=deal, date=timezone.now().date())
    # A rival who won already: their row is on the board, their game is not the scout's.
    rival = make_player("rival")
    rival_client = signed_in(rival)
    rival_attempt = play_as_second_account(rival_client, Reached(), challenge, "won")
    scout = make_player("scout")
    client = signed_in(scout)
    reached = Reached()
    cookie = client.cookies["sessionid"].value

    def play() -> int:
        return play_as_second_account(client, reached, challenge, ending)

    frames = async_to_sync(watch_while)(cookie, challenge.pk, play)
    attempt = Attempt.objects.get(player=scout, challenge=challenge)
    assert len(frames) >= 2  # the snapshot and at least one push
    reached.texts += [("websocket", frame) for frame in frames]
    ids = {"mine": attempt.pk, "rival": rival_attempt}
    socket_frames = async_to_sync(play_socket_frames)(
        cookie, attempt.pk, rival_attempt, list(attempt.log)
    )
    reached.texts += [("play socket", frame) for frame in socket_frames]
    collect_reads(client, reached, challenge, username="scout", **ids)

    assert attempt.is_over is (ending != "closed_by_the_day")
    seen = cards_seen(deal, list(attempt.log))
    if ending == "resigned_at_once":
        assert len(seen) <= engine.get_variant(variant).columns  # the face-up cards of the deal
    # An operator's scrape of the metrics (docs/metrics.md) holds nothing of the deal either.
    scrape = reached.add("metrics", Client(HTTP_AUTHORIZATION="Bearer t").get("/metrics/"))
    assert scrape.status_code == 200
    assert_nothing_hidden(reached, deal, seen, log_lines(caplog.records))

    if ending == "closed_by_the_day":
        assert_everything_public_once_the_day_is_over(client, challenge, attempt)


def assert_everything_public_once_the_day_is_over(
    client: Client, challenge: DailyChallenge, attempt: Attempt
) -> None:
    """After the close: seed, nonce, deal, solution and every counted log, to everyone."""
    closed = past_challenge_of(challenge)
    deal = closed.deal
    whole = engine.board_state(engine.Board.deal(deal.variant, deal.seed_int))
    api = "/api/v1"
    revealed = Client().get(f"{api}/challenges/{closed.pk}/").json()["revealed"]
    assert revealed == {
        "seed": deal.seed,
        "nonce": deal.nonce,
        "start_state": whole,
        "solution": deal.solution,
        "improve_nodes": deal.solver_improve_nodes,
        "solver_version": deal.solver_version,
    }
    detail = client.get(f"{api}/attempts/{attempt.pk}/").json()
    assert detail["end_reason"] == "day_closed" and detail["deal_revealed"] is True
    assert detail["start_state"] == whole and detail["seed"] == deal.seed
    step = client.get(f"{api}/attempts/{attempt.pk}/replay/?step=0").json()
    assert step["state"] == whole and step["cards_revealed"] is True
    logs = Client().get(f"{api}/challenges/{closed.pk}/attempts/").json()["attempts"]
    assert {row["username"] for row in logs} == {"rival", "scout"}
    stranger = Client().get(f"{api}/attempts/{attempt.pk}/replay/?step=1").json()
    assert stranger["state"] == engine.board_state(
        engine.replay(deal.variant, deal.seed_int, list(attempt.log)[:1]).board
    )


def test_a_challenge_before_its_day_answers_exactly_as_an_unknown_one() -> None:
    deal = verified_deal(*DEALS[0])
    tomorrow = deal_schedule(deal=deal, date=timezone.now().date() + dt.timedelta(days=1))
    unknown = tomorrow.pk + 1000
    client = signed_in(make_player("early"))
    api = "/api/v1"
    for method, template in (
        ("get", api + "/challenges/{}/"),
        ("post", api + "/challenges/{}/start/"),
        ("post", api + "/challenges/{}/practice/"),
        ("get", api + "/challenges/{}/attempts/"),
        ("get", api + "/challenges/{}/solution/?step=1"),
        ("get", api + "/leaderboards/challenges/{}/"),
    ):
        future = getattr(client, method)(template.format(tomorrow.pk))
        missing = getattr(client, method)(template.format(unknown))
        assert future.status_code == missing.status_code == 404, template
        assert future.json() == missing.json(), template
    assert not Attempt.objects.exists()
    closes = [async_to_sync(close_code_of)(challenge_id) for challenge_id in (tomorrow.pk, unknown)]
    assert closes == [4404, 4404]


async def close_code_of(challenge_id: int) -> int:
    communicator = WebsocketCommunicator(
        application, f"/ws/challenges/{challenge_id}/", headers=[ORIGIN]
    )
    await communicator.connect()
    output = await communicator.receive_output(timeout=5)
    await communicator.wait()
    await database_sync_to_async(connections.close_all)()  # (as in watch_while)
    assert output["type"] == "websocket.close", output
    return int(output["code"])


def test_a_ranked_win_replaying_the_stored_solution_is_flagged_a_human_line_is_not() -> None:
    deal = verified_deal(*DEALS[0])
    challenge = deal_schedule(deal=deal, date=timezone.now().date())
    solution = list(deal.solution or [])
    copier = signed_in(make_player("copier"))
    attempt_id = int(post(copier, f"/api/v1/challenges/{challenge.pk}/start/").json()["id"])
    # A detour first (a move and its undo), then the solution as one run.
    detour = [solution[0], "undo"]
    line = detour + solution
    for offset in range(0, len(line), 100):
        batch = {"offset": offset, "actions": line[offset : offset + 100]}
        answer = post(copier, f"/api/v1/attempts/{attempt_id}/actions/", batch)
        assert answer.status_code == 200, answer.content
    assert answer.json()["won"]
    copied = Attempt.objects.get(pk=attempt_id)
    assert copied.flagged
    assert (
        f"{len(solution)} of the {len(solution)} actions of the stored solution played as one run"
        in copied.flag_reason
    )
    # A win that shares no long run with the solution is not flagged for it.
    assert plausibility.solution_copy_reason(copied) is not None
    copied.log = [step for action in solution for step in (action, action, "undo")][:-1]
    assert plausibility.longest_solution_run(copied.log, solution, 10) == 0
    assert plausibility.solution_copy_reason(copied) is None


def test_the_longest_shared_run_is_found_exactly() -> None:
    solution = [f"m{n}" for n in range(50)]
    log = ["x", *solution[:10], "y", *solution[10:45], "z"]
    assert plausibility.longest_solution_run(log, solution, 30) == 35
    assert plausibility.longest_solution_run(log, solution, 36) == 0
    assert plausibility.longest_solution_run(solution, solution, 40) == 50
