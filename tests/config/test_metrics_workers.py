"""Several server processes, one scrape: the production command with two uvicorn workers and
PROMETHEUS_MULTIPROC_DIR. Whichever worker answers a scrape, it reports the sum of both:
health checks answered by both workers, a game played over HTTP, watchers on either."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import pytest
from prometheus_client.multiprocess import MultiProcessCollector
from rest_framework.authtoken.models import Token
from websockets.sync.client import connect

from tests.config.metrics_support import Samples, parse, value
from tests.config.server_support import running_server
from tests.factories import make_player
from tests.games.api_support import solution_of, todays_challenge
from tests.own_redis import OwnRedis, own_redis
from tests.waiting import wait_for

__all__ = ["own_redis"]

ACTIONS_ROUTE = "api/v1/attempts/<int:attempt_id>/actions/"
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TOKEN = "workers-metrics-token"
HEALTH_CHECKS = 16
MAX_HEALTH_CHECKS = 800
WATCHERS = 4


def pids_with_files(folder: Path) -> set[str]:
    return {file.stem.split("_")[-1] for file in folder.glob("*.db")}


def served_by_pid(folder: Path, route: str) -> dict[str, float]:
    """Requests to ``route`` each worker process counted in its own file."""
    served: dict[str, float] = {}
    for file in folder.glob("histogram_*.db"):
        pid = file.stem.split("_")[-1]
        for family in MultiProcessCollector.merge([str(file)]):
            for sample in family.samples:
                if sample.name.endswith("_count") and sample.labels.get("route") == route:
                    served[pid] = served.get(pid, 0.0) + sample.value
    return served


def test_two_workers_answer_every_scrape_with_the_sum_of_both(
    own_redis: OwnRedis, tmp_path: Path
) -> None:
    challenge = todays_challenge()
    line = solution_of(challenge.deal)
    player = make_player()
    key = Token.objects.create(user=player).key
    env = {
        "METRICS_ENABLED": "true",
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
    }
    with running_server(own_redis, workers=2, **env) as (_process, port):
        base = f"http://127.0.0.1:{port}"

        def call(path: str, body: Any = None, auth: str = f"Token {key}") -> Any:
            request = urllib.request.Request(
                base + path,
                data=None if body is None else json.dumps(body).encode(),
                method="GET" if body is None else "POST",
                headers={"Authorization": auth, "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.read()

        def scrape() -> Samples:
            return parse(call("/metrics/", auth=f"Bearer {TOKEN}").decode())

        # Both workers up (each writes its files once it has loaded the app), then health
        # checks on new connections, a few at once, until both have answered some (the
        # kernel hands each connection to one of them).
        wait_for(lambda: len(pids_with_files(tmp_path)) == 2, 30, "both workers up")
        checks = 0
        with ThreadPoolExecutor(8) as pool:
            while len(served_by_pid(tmp_path, "health/")) < 2 and checks < MAX_HEALTH_CHECKS:
                list(pool.map(lambda _: call("/health/"), range(HEALTH_CHECKS)))
                checks += HEALTH_CHECKS
        with contextlib.ExitStack() as stack:
            watchers = [
                stack.enter_context(
                    connect(
                        f"ws://127.0.0.1:{port}/ws/challenges/{challenge.pk}/",
                        origin=cast(Any, base),
                        open_timeout=10,
                    )
                )
                for _ in range(WATCHERS)
            ]
            for watcher in watchers:
                assert '"snapshot"' in str(watcher.recv(timeout=10))
            attempt = json.loads(call(f"/api/v1/challenges/{challenge.pk}/start/", {}))
            actions = f"/api/v1/attempts/{attempt['id']}/actions/"
            for offset in range(0, len(line), 20):
                call(actions, {"offset": offset, "actions": line[offset : offset + 20]})
            for watcher in watchers:  # the win reaches every watcher, on either worker
                while json.loads(watcher.recv(timeout=10))["type"] != "board":
                    pass
            watching = [scrape() for _ in range(6)]
        # The sockets are closed: the workers count them out as their consumers end.
        left = [scrape() for _ in range(6)]
        for _ in range(50):
            if all(value(s, "astrocyte_websockets_open") == 0 for s in left[-2:]):
                break
            left.append(scrape())

    assert len(served_by_pid(tmp_path, "health/")) == 2, "both workers served health checks"
    for samples in watching + left:
        count = "astrocyte_http_request_duration_seconds_count"
        health = value(samples, count, method="GET", route="health/", status="200")
        assert health == checks + 1  # and running_server's readiness probe
        # The token posts are timed under the endpoint's route, once each.
        posts = value(samples, count, method="POST", route=ACTIONS_ROUTE, status="200")
        assert posts == len(range(0, len(line), 20))
        accepted = value(samples, "astrocyte_actions_total", kind="ranked", outcome="accepted")
        assert accepted == len(line)
        assert value(samples, "astrocyte_websockets_opened_total") == WATCHERS
    for samples in watching:
        assert value(samples, "astrocyte_websockets_open") == WATCHERS
    assert value(left[-1], "astrocyte_websockets_open") == 0
    for samples in watching + left:
        assert value(samples, "astrocyte_boards_pushed_total") == 1  # the win's board
