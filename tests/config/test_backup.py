"""Backups (docs/operations.md): PostgreSQL holds all the state, so a pg_dump restored with
pg_restore into a fresh database serves the same boards. Real days are played through the
services, dumped with the PostgreSQL client tools, restored into a new database, and the
boards are read through the API from a server process pointed at the restored copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from config.env import ENVIRONMENT_VARIABLES
from games.models import Attempt, DailyChallenge
from games.services.attempts import attempt_push_actions, attempt_resign, attempt_start_ranked
from tests.factories import make_player
from tests.games.api_support import past_challenge_of, solution_of, todays_challenge
from tests.games.conftest import OTHER_QUICK_SEED, QUICK_VARIANT
from tests.run_support import run_ok

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS_DOC = ROOT / "docs" / "operations.md"
# The commands docs/operations.md gives an operator, with the same options.
DUMP = ["pg_dump", "--format=custom", "--no-owner"]
RESTORE = ["pg_restore", "--no-owner", "--single-transaction", "--exit-on-error"]

READ_BOARDS = """
import json, sys, django
django.setup()
from django.test import Client
client = Client()
answers = [client.get(url) for url in json.loads(sys.argv[1])]
print(json.dumps({a.request["PATH_INFO"] + "?" * bool(a.request["QUERY_STRING"])
    + a.request["QUERY_STRING"]: [a.status_code, a.json()] for a in answers}))
"""


def libpq_options(database: str) -> list[str]:
    default = settings.DATABASES["default"]
    options = [
        "--host",
        str(default["HOST"] or "127.0.0.1"),
        "--port",
        str(default["PORT"] or 5432),
    ]
    if default["USER"]:
        options += ["--username", str(default["USER"])]
    return [*options, "--dbname", database]


def libpq_env() -> dict[str, str]:
    env = dict(os.environ)
    if settings.DATABASES["default"].get("PASSWORD"):
        env["PGPASSWORD"] = str(settings.DATABASES["default"]["PASSWORD"])
    return env


def client_tool(name: str) -> str:
    tool = shutil.which(name)
    assert tool is not None, f"the PostgreSQL client tools are needed: no {name} on PATH"
    return tool


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """An empty database beside the test database, dropped afterwards."""
    name = f"{settings.DATABASES['default']['NAME']}_restored"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def win(player: Any, challenge: DailyChallenge) -> Attempt:
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    line = solution_of(challenge.deal)
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=line)
    return Attempt.objects.get(pk=attempt.pk)


def play_some(player: Any, challenge: DailyChallenge, actions: int) -> Attempt:
    attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
    line = solution_of(challenge.deal)[:actions]
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=0, actions=line)
    return Attempt.objects.get(pk=attempt.pk)


def play_two_days() -> tuple[DailyChallenge, DailyChallenge]:
    """Yesterday: ann won, bob resigned. Today: ann won again, cid is still playing."""
    ann, bob, cid = make_player("ann"), make_player("bob"), make_player("cid")
    yesterday = todays_challenge()
    win(ann, yesterday)
    attempt_resign(attempt_id=play_some(bob, yesterday, 5).pk, player=bob)
    yesterday = past_challenge_of(yesterday)
    today = todays_challenge(seed=OTHER_QUICK_SEED)
    win(ann, today)
    play_some(cid, today, 3)
    return yesterday, today


def boards_of(yesterday: DailyChallenge, today: DailyChallenge) -> list[str]:
    return [
        f"/api/v1/leaderboards/challenges/{yesterday.pk}/",
        f"/api/v1/leaderboards/challenges/{today.pk}/",
        "/api/v1/leaderboards/alltime/?days=7",
        f"/api/v1/leaderboards/streaks/?variant={QUICK_VARIANT}",
        "/api/v1/leaderboards/players/ann/",
        "/api/v1/leaderboards/players/bob/",
        f"/api/v1/challenges/{yesterday.pk}/",
        f"/api/v1/challenges/{yesterday.pk}/attempts/",
        f"/api/v1/challenges/{yesterday.pk}/solution/",
    ]


def boards_served_by(database: str, urls: list[str]) -> dict[str, Any]:
    """The boards as a server process pointed at ``database`` serves them."""
    default = settings.DATABASES["default"]
    url = (
        f"postgres://{default['USER'] or ''}"
        f"{':' + str(default['PASSWORD']) if default.get('PASSWORD') else ''}"
        f"@{default['HOST'] or '127.0.0.1'}:{default['PORT'] or 5432}/{database}"
    )
    env = {key: value for key, value in os.environ.items() if key not in ENVIRONMENT_VARIABLES}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": url,
            "ALLOWED_HOSTS": "testserver",  # the test client's
        }
    )
    result = run_ok([sys.executable, "-c", READ_BOARDS, json.dumps(urls)], env)
    served: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return served


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_dump_restored_into_a_fresh_database_serves_the_same_boards(
    tmp_path: Path, fresh_database: str
) -> None:
    yesterday, today = play_two_days()
    urls = boards_of(yesterday, today)
    client = Client()
    answers = {url: client.get(url) for url in urls}
    before = {url: answer.json() for url, answer in answers.items()}
    assert {answer.status_code for answer in answers.values()} == {200}
    # What is compared is real: both days ranked, the streak, the player still playing.
    assert [row["username"] for row in before[urls[0]]["top"]] == ["ann", "bob"]
    assert before[urls[1]]["counts"] == {"playing": 1, "finished": 1}
    assert before[urls[3]]["rows"][0] == {
        "rank": 1,
        "username": "ann",
        "current": 2,
        "last_won": today.date.isoformat(),
    }
    # A past day shows its logs and its deal's solution.
    assert {row["username"] for row in before[urls[7]]["attempts"]} == {"ann", "bob"}
    assert before[urls[8]]["steps"] == len(solution_of(yesterday.deal))

    dump = tmp_path / "astrocyte.dump"
    source = str(settings.DATABASES["default"]["NAME"])
    subprocess.run(
        [client_tool(DUMP[0]), *DUMP[1:], "--file", str(dump), *libpq_options(source)],
        check=True,
        env=libpq_env(),
        timeout=120,
    )
    subprocess.run(
        [client_tool(RESTORE[0]), *RESTORE[1:], *libpq_options(fresh_database), str(dump)],
        check=True,
        env=libpq_env(),
        timeout=120,
    )

    assert boards_served_by(fresh_database, urls) == {url: [200, before[url]] for url in urls}


def test_the_operations_doc_gives_the_tested_commands() -> None:
    doc = OPERATIONS_DOC.read_text()
    assert " ".join(DUMP) in doc
    assert " ".join(RESTORE) in doc
