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

import asyncio
import datetime as dt
import json
import logging
import logging.config
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connections
from django.test import Client
from django.utils import timezone

from config.asgi import application
from games import engine
from games.models import Attempt, DailyChallenge, Deal
from games.services import plausibility
from games.services.deals import deal_schedule
from tests.factories import make_player, verified_deal
from tests.frontend.helpers import hidden_card_problems
from tests.games.api_support import past_challenge_of
from tests.games.conftest import QUICK_LONG_SEED, QUICK_SEEDS

pytestmark = pytest.mark.django_db(transaction=True)

# A card code standing alone (in JSON, text or HTML): not inside a longer word or token.
CARD = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")
ORIGIN = (b"origin", b"http://localhost")
# Two deals: Astrocyte (four suits: a hidden card's value is rarely one already seen), and
# Spider with a 19-digit seed (long enough to be looked for in every text).
DEALS = [("astrocyte", QUICK_SEEDS["astrocyte"]), ("spider1", QUICK_LONG_SEED)]
ENDINGS = ["resigned_at_once", "resigned_after_play", "won", "closed_by_the_day"]
PLAY_FIRST = 12  # actions of the deal's solution played before resigning (or leaving)


@dataclass
class Reached:
    """Everything one account received: (where, text) pairs."""

    texts: list[tuple[str, str]] = field(default_factory=list)

    def add(self, where: str, response: Any) -> Any:
        self.texts.append((where, response.content.decode()))
        return response

    def json(self, where: str, response: Any) -> Any:
        return self.add(where, response).json()


def cards_seen(deal: Deal, log: list[str]) -> set[str]:
    """Every card value that was face up at some moment of this log, by the engine alone."""
    board = engine.Board.deal(deal.variant, deal.seed_int)
    seen: set[str] = set()

    def look() -> None:
        view = engine.board_view(board)
        for pile in (*view["tableau"], view["cells"], *view["foundations"]):
            seen.update(card for card in pile if card is not None)

    look()
    for action in log:
        board.push_text(action)
        look()
    return seen


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def collect_reads(client: Client, reached: Reached, challenge: DailyChallenge, **ids: Any) -> None:
    """Every read an account can make about the day, its own attempt and a rival's."""
    cid, mine, rival, username = challenge.pk, ids["mine"], ids["rival"], ids["username"]
    api = "/api/v1"
    for path in (
        f"{api}/challenges/today/",
        f"{api}/challenges/{cid}/",
        f"{api}/challenges/{cid}/attempts/",
        f"{api}/challenges/{cid}/solution/?step=1",
        f"{api}/attempts/{mine}/",
        f"{api}/attempts/{mine}/hint/",
        f"{api}/attempts/{rival}/",
        f"{api}/attempts/{rival}/replay/?step=1",
        f"{api}/leaderboards/challenges/{cid}/",
        f"{api}/leaderboards/alltime/",
        f"{api}/leaderboards/streaks/?variant={challenge.variant}",
        f"{api}/leaderboards/players/{username}/",
        f"{api}/leaderboards/players/rival/",
        f"{api}/leaderboards/attempts/{mine}/would-rank/",
        f"{api}/archive/?variant={challenge.variant}",
        "/",
        f"/play/{cid}/",
        "/practice/",
        f"/replay/{mine}/",
        f"/replay/{rival}/",
        f"/challenges/{cid}/replays/",
        f"/leaderboards/{cid}/",
        "/leaderboards/alltime/",
        "/leaderboards/streaks/",
        f"/players/{username}/",
        "/archive/",
        f"/archive/{cid}/",
        "/health/",
    ):
        response = reached.add(path, client.get(path))
        assert response.status_code < 500, (path, response.status_code)
    # The archive opens a day only once it is over: no practice run at an open day's deal.
    rehearsal = reached.add("archive start", post(client, f"{api}/challenges/{cid}/practice/"))
    assert rehearsal.status_code == 404, rehearsal.content
    detail = client.get(f"{api}/attempts/{mine}/").json()
    if detail["over"]:
        for step in range(detail["action_count"] + 1):
            path = f"{api}/attempts/{mine}/replay/?step={step}"
            assert reached.add(path, client.get(path)).status_code == 200


def post(client: Client, path: str, body: Any = None) -> Any:
    return client.post(path, json.dumps(body or {}), content_type="application/json")


def play_as_second_account(
    client: Client, reached: Reached, challenge: DailyChallenge, ending: str
) -> int:
    """Start the daily, play as ``ending`` says (with refused actions on the way); the
    attempt's id."""
    api = "/api/v1"
    started = reached.json("start", post(client, f"{api}/challenges/{challenge.pk}/start/"))
    attempt_id = int(started["id"])
    reached.add("start again", post(client, f"{api}/challenges/{challenge.pk}/start/"))
    actions = f"{api}/attempts/{attempt_id}/actions/"
    solution = list(challenge.deal.solution or [])
    played = {"resigned_at_once": 0, "won": len(solution)}.get(ending, PLAY_FIRST)
    for offset in range(0, played, 5):
        batch = solution[offset : offset + 5]
        answer = post(client, actions, {"offset": offset, "actions": batch})
        assert reached.add(f"actions {offset}", answer).status_code == 200, answer.content
    for refused in (["t1-t1"], ["t1-t2:7"], ["f1-t1"], ["undo"] * 300):
        answer = post(client, actions, {"offset": played, "actions": refused})
        assert reached.add(f"refused {refused[:1]}", answer).status_code in (400, 409)
    reached.add("stale offset", post(client, actions, {"offset": played + 3, "actions": ["undo"]}))
    if ending.startswith("resigned"):
        resign = f"{api}/attempts/{attempt_id}/resign/"
        assert reached.add("resign", post(client, resign)).status_code == 200
        assert reached.add("resign again", post(client, resign)).status_code == 409
    return attempt_id


def assert_nothing_hidden(
    reached: Reached, deal: Deal, seen: set[str], log_lines: list[str]
) -> None:
    secrets = [deal.nonce, *([deal.seed] if len(deal.seed) >= 10 else [])]
    solution_text = " ".join(deal.solution or [])
    for where, text in reached.texts:
        for secret in secrets:
            assert secret not in text, f"{where} gives away the seed or nonce"
        assert solution_text not in text, f"{where} gives away the solution"
        strangers = sorted(set(CARD.findall(text)) - seen)
        assert not strangers, f"{where} shows cards this account never turned up: {strangers}"
        if text.lstrip().startswith(("{", "[")):
            assert hidden_card_problems(json.loads(text)) == [], where
    for line in log_lines:
        for secret in secrets:
            assert secret not in line, f"a log line gives away the seed or nonce: {line}"
        assert solution_text not in line, f"a log line gives away the solution: {line}"
        strangers = sorted(set(CARD.findall(line)) - seen)
        assert not strangers, f"a log line shows cards this account never turned up: {line}"


def log_lines(records: list[logging.LogRecord]) -> list[str]:
    """The captured records as the server writes them, in either LOG_FORMAT (plain, json:
    whose objects carry every field a record has, ``extra`` ones too)."""
    lines = []
    formats: dict[str, dict[str, Any]] = django_settings.LOG_FORMATS
    for spec in formats.values():
        configurator = logging.config.DictConfigurator({})
        formatter = configurator.configure_formatter(dict(spec))  # (it pops from what it gets)
        lines += [formatter.format(record) for record in records]
    return lines


async def watch_while(cookie: str, challenge_id: int, play: Any) -> list[str]:
    """The WebSocket snapshot, then every push received while ``play`` runs (and after)."""
    communicator = WebsocketCommunicator(
        application,
        f"/ws/challenges/{challenge_id}/",
        headers=[ORIGIN, (b"cookie", f"sessionid={cookie}".encode())],
    )
    connected, _ = await communicator.connect()
    assert connected
    frames = [await communicator.receive_from(timeout=5)]
    result = await database_sync_to_async(play)()
    for _ in range(40):  # pushes are coalesced for 250 ms: wait up to 2 s for them
        if await communicator.receive_nothing(timeout=0.05, interval=0.01):
            continue
        frames.append(await communicator.receive_from())
    await communicator.disconnect()
    await asyncio.sleep(0.3)  # let a pending board flush finish
    # database_sync_to_async ran in asgiref's one sync thread: give its connection back to
    # the pool (a connection left there stays checked out for the rest of the session).
    await database_sync_to_async(connections.close_all)()
    return [*frames, json.dumps(result)]


async def play_socket_frames(cookie: str, mine: int, rival: int, log: list[str]) -> list[str]:
    """Every frame of the account's play socket (ws/attempts/<id>/play/): a retry of its
    first batch, a refused action, a stale offset; and the rival's attempt's socket."""
    from games.api.play_threads import release_connections

    frames: list[str] = []
    headers = [ORIGIN, (b"cookie", f"sessionid={cookie}".encode())]
    for attempt_id in (mine, rival):
        socket = WebsocketCommunicator(application, f"/ws/attempts/{attempt_id}/play/", headers)
        connected, _ = await socket.connect()
        assert connected
        frames.append(await socket.receive_from(timeout=5))
        if attempt_id == rival:
            assert (await socket.receive_output(timeout=5))["code"] == 4404
            continue
        messages = [
            {"offset": 0, "actions": log[:5] or ["deal"]},
            {"offset": len(log), "actions": ["t1-t1"]},
            {"offset": len(log) + 3, "actions": ["undo"]},
        ]
        for n, body in enumerate(messages):
            await socket.send_json_to({"type": "actions", "id": n, **body})
            frames.append(await socket.receive_from(timeout=5))
        await socket.disconnect()
    await asyncio.to_thread(release_connections)
    return frames


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
