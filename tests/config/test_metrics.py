"""The Prometheus endpoint as an operator scrapes it: off unless enabled, behind its token,
and its figures move as a game is played through the API (docs/metrics.md).

The multi-process case (several uvicorn workers summed in one scrape) is in
tests/config/test_metrics_workers.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.test import Client

from config.asgi import application
from core import metrics as core_metrics
from games.models import Deal
from games.services.deals import deal_create, deal_verify
from tests.config.metrics_support import Samples, parse, value
from tests.factories import make_player
from tests.games.api_support import client_for, solution_of, todays_challenge
from tests.games.conftest import QUICK_LONG_SEED, QUICK_VARIANT

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "metrics-test-token"
ACTIONS_ROUTE = "api/v1/attempts/<int:attempt_id>/actions/"
ORIGIN = (b"origin", b"http://localhost")
BATCH = 10


@pytest.fixture(autouse=True)
def metrics_on(settings: Any) -> None:
    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = TOKEN


def scrape(client: Client | None = None) -> Samples:
    response = (client or Client()).get("/metrics/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return parse(response.content.decode())


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_the_endpoint_is_off_unless_enabled_and_asks_for_its_token(settings: Any) -> None:
    settings.METRICS_ENABLED = False
    assert Client().get("/metrics/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404
    settings.METRICS_ENABLED = True
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        refused = Client().get("/metrics/", headers=headers)
        assert refused.status_code == 401
        assert refused["WWW-Authenticate"].startswith("Bearer")
        assert refused.json()["error"]["code"] == "not_authenticated"
        assert b"astrocyte_" not in refused.content
    assert Client().get("/metrics/", HTTP_AUTHORIZATION="Bearer \u00e9").status_code == 401
    assert Client().post("/metrics/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 405
    settings.METRICS_TOKEN = ""  # enabled without a token: open to whoever reaches it
    assert Client().get("/metrics/").status_code == 200


def test_latency_is_labelled_by_route_never_by_the_path() -> None:
    player = make_player()
    client = client_for(player)
    before = scrape()
    for attempt_id in (987654, 987655):
        assert client.get(f"/api/v1/attempts/{attempt_id}/").status_code == 404
    assert Client().get("/no/such/page/31337/").status_code == 404
    after = scrape()
    route = "api/v1/attempts/<int:attempt_id>/"
    count = "astrocyte_http_request_duration_seconds_count"
    assert moved(before, after, count, method="GET", route=route, status="404") == 2
    assert moved(before, after, count, method="GET", route="(unresolved)", status="404") == 1
    text = Client().get("/metrics/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    # Look in the labels, where a path would go: a sample's value (a sum of
    # seconds) can hold any run of digits.
    label_values = {label for _, labels in parse(text) for _, label in labels}
    assert not [label for label in label_values if "987654" in label or "31337" in label]


async def watch(challenge_id: int, play: Callable[[], Any]) -> tuple[list[dict[str, Any]], Any]:
    """One watcher on the live board while ``play`` runs; the frames it got, and what
    ``play`` returned."""
    communicator = WebsocketCommunicator(
        application, f"/ws/challenges/{challenge_id}/", headers=[ORIGIN]
    )
    connected, _ = await communicator.connect()
    assert connected
    frames = [json.loads(await communicator.receive_from(timeout=5))]
    result = await database_sync_to_async(play)()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not any(f["type"] == "board" for f in frames):
        if not await communicator.receive_nothing(timeout=0.05, interval=0.01):
            frames.append(json.loads(await communicator.receive_from()))
    await communicator.disconnect()
    await asyncio.sleep(0.1)
    await database_sync_to_async(connections.close_all)()
    return frames, result


# A cache of its own: the live board's window claims are keyed by challenge id, and an
# earlier test's claim on the same id (ids repeat from test to test) would hold this one's
# board back until it expired.
@pytest.mark.usefixtures("fresh_throttles")
def test_a_played_game_moves_the_counters_as_a_player_would_expect() -> None:
    challenge = todays_challenge()
    line = solution_of(challenge.deal)
    player = make_player()
    client = client_for(player)
    before = scrape()

    def play() -> Samples:
        started = client.post(f"/api/v1/challenges/{challenge.pk}/start/", format="json")
        assert started.status_code == 201
        actions = f"/api/v1/attempts/{started.json()['id']}/actions/"
        # A refused action, a stale offset, then the whole winning line (and one retry).
        assert (
            client.post(actions, {"offset": 0, "actions": ["t1-t1"]}, format="json").status_code
            == 400
        )
        assert (
            client.post(actions, {"offset": 5, "actions": ["undo"]}, format="json").status_code
            == 409
        )
        for offset in range(0, len(line), BATCH):
            batch = {"offset": offset, "actions": line[offset : offset + BATCH]}
            assert client.post(actions, batch, format="json").status_code == 200
            if offset == 0:  # the answer was lost: the client posts the same batch again
                assert client.post(actions, batch, format="json").status_code == 200
        return scrape()

    frames, while_watching = async_to_sync(watch)(challenge.pk, play)
    after = scrape()
    batches = -(-len(line) // BATCH)

    assert moved(
        before, after, "astrocyte_actions_total", kind="ranked", outcome="accepted"
    ) == len(line)
    assert moved(before, after, "astrocyte_actions_total", kind="ranked", outcome="refused") == 1
    assert moved(before, after, "astrocyte_action_batches_total", outcome="accepted") == batches
    assert moved(before, after, "astrocyte_action_batches_total", outcome="retry") == 1
    assert moved(before, after, "astrocyte_action_batches_total", outcome="invalid_action") == 1
    assert moved(before, after, "astrocyte_action_batches_total", outcome="offset_conflict") == 1
    posts = "astrocyte_http_request_duration_seconds_count"
    assert (
        moved(before, after, posts, method="POST", route=ACTIONS_ROUTE, status="200") == batches + 1
    )
    assert moved(before, after, posts, method="POST", route=ACTIONS_ROUTE, status="400") == 1
    assert moved(before, after, posts, method="POST", route=ACTIONS_ROUTE, status="409") == 1
    # The watcher was counted while it watched, and no longer once it left.
    assert moved(before, while_watching, "astrocyte_websockets_open") == 1
    assert moved(before, after, "astrocyte_websockets_open") == 0
    assert moved(before, after, "astrocyte_websockets_opened_total") == 1
    # The win put the player on the board: a board went out, and the watcher got it.
    assert any(frame["type"] == "board" and frame["top"] for frame in frames)
    assert moved(before, after, "astrocyte_boards_pushed_total") >= 1
    # The deal figures come from the database: today's daily is filled, the others not.
    assert value(after, "astrocyte_database_figures_up") == 1
    assert (
        value(after, "astrocyte_deals", pool="daily", variant=QUICK_VARIANT, status="verified") == 1
    )
    unfilled = value(after, "astrocyte_daily_days_unfilled", variant=settings.DAILY_VARIANTS[0])
    filled_today = settings.DAILY_VARIANTS[0] == QUICK_VARIANT
    assert unfilled == settings.DAILY_DAYS_AHEAD - (1 if filled_today else 0)


def test_verification_outcomes_and_durations_are_read_from_the_deal_rows() -> None:
    before = scrape()
    deal = deal_create(variant=QUICK_VARIANT, seed=QUICK_LONG_SEED)
    pending = scrape()
    assert (
        moved(
            before,
            pending,
            "astrocyte_deals",
            pool="daily",
            variant=QUICK_VARIANT,
            status="pending",
        )
        == 1
    )
    verified = deal_verify(deal_id=deal.pk)
    assert verified.status == Deal.Status.VERIFIED and verified.solver_seconds is not None
    after = scrape()
    labels = {"variant": QUICK_VARIANT, "outcome": "verified"}
    assert (
        moved(before, after, "astrocyte_deal_verification_runs_total", variant=QUICK_VARIANT) == 1
    )
    assert moved(before, after, "astrocyte_deal_verification_outcomes", **labels) == 1
    assert moved(before, after, "astrocyte_deal_verification_seconds_count", **labels) == 1
    assert moved(
        before, after, "astrocyte_deal_verification_seconds_sum", **labels
    ) == pytest.approx(verified.solver_seconds)
    inf = value(after, "astrocyte_deal_verification_seconds_bucket", le="+Inf", **labels)
    assert inf == value(after, "astrocyte_deal_verification_seconds_count", **labels)
    assert (
        moved(
            before, after, "astrocyte_deals", pool="daily", variant=QUICK_VARIANT, status="pending"
        )
        == 0
    )


def test_live_gauges_of_dead_processes_stop_counting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Multiprocess mode: a worker that exited takes its open sockets out of the sum; its
    counters stay in it (no request it served is lost)."""
    program = (
        "import sys, time\n"
        "from leaderboards.metrics import WEBSOCKETS_OPEN, WEBSOCKETS_OPENED\n"
        "WEBSOCKETS_OPEN.inc(int(sys.argv[1])); WEBSOCKETS_OPENED.inc(int(sys.argv[1]))\n"
        "print('ready', flush=True); time.sleep(float(sys.argv[2]))\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}

    def worker(sockets: int, lives: float) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-c", program, str(sockets), str(lives)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        return process

    gone = worker(3, 0)
    assert gone.wait(timeout=30) == 0
    alive = worker(2, 60)
    try:
        monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
        samples = parse(core_metrics.exposition().decode())
        assert value(samples, "astrocyte_websockets_open") == 2
        assert value(samples, "astrocyte_websockets_opened_total") == 5
        assert not list(tmp_path.glob(f"gauge_live*_{gone.pid}.db"))
    finally:
        alive.kill()  # our own child, by its handle
        alive.wait()
