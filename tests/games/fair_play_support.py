"""What the second-account scans share: a scout's reads of everything it may reach, the
cards it turned up itself, and the check that nothing else of the deal reached it."""

from __future__ import annotations

import asyncio
import json
import logging
import logging.config
import re
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connections
from django.test import Client

from config.asgi import application
from games import engine
from games.models import DailyChallenge, Deal
from tests.frontend.helpers import hidden_card_problems
from tests.games.conftest import QUICK_LONG_SEED, QUICK_SEEDS
from tests.leaderboards.live_support import settled_frames

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


async def frames_while(path: str, cookie: str, play: Any) -> tuple[list[str], Any]:
    """A signed-in socket's first frame (its snapshot), then every frame received while
    ``play`` runs and after, until every push it set off has run to its end (window flushes
    included: ``core.live.wait_idle``) and its frames have arrived; and what ``play``
    returned."""
    communicator = WebsocketCommunicator(
        application, path, headers=[ORIGIN, (b"cookie", f"sessionid={cookie}".encode())]
    )
    connected, _ = await communicator.connect()
    assert connected
    frames = [await communicator.receive_from(timeout=5)]
    result = await database_sync_to_async(play)()
    frames += await settled_frames(communicator)
    await communicator.disconnect()
    # database_sync_to_async ran in asgiref's one sync thread: give its connection back to
    # the pool (a connection left there stays checked out for the rest of the session).
    await database_sync_to_async(connections.close_all)()
    return frames, result


async def watch_while(cookie: str, challenge_id: int, play: Any) -> list[str]:
    """The board's snapshot, then every push received while ``play`` runs (and after), and
    what ``play`` returned, as JSON."""
    path = f"/ws/challenges/{challenge_id}/"
    frames, result = await frames_while(path, cookie, play)
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
