"""HTTP action posts and the play cursors a server process holds between them
(games/api/held_cursors.py): after a player's first post, the next is written by one
conditional statement, without the row lock or a replay; whatever else happened to the
attempt meanwhile (another process's post, another player, a refusal) is answered from the
row under its lock, exactly as without a cursor.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.api.held_cursors import HeldCursors, held_cursors
from games.models import Attempt
from games.services.attempts import PlayCursor, attempt_push_actions
from tests.factories import make_player
from tests.games.api_support import client_for, solution_of, todays_challenge

pytestmark = pytest.mark.django_db


def started() -> tuple[Any, Any, Attempt, list[str]]:
    player = make_player()
    client = client_for(player)
    response = client.post(f"/api/v1/challenges/{todays_challenge().pk}/start/")
    assert response.status_code == 201
    attempt = Attempt.objects.get(pk=response.json()["id"])
    return player, client, attempt, solution_of(attempt.deal)


def post(client: Any, attempt: Attempt, offset: int, actions: list[str]) -> Any:
    return client.post(
        f"/api/v1/attempts/{attempt.pk}/actions/",
        {"offset": offset, "actions": actions},
        format="json",
    )


def test_after_the_first_post_a_post_is_one_conditional_update() -> None:
    _, client, attempt, line = started()
    with CaptureQueriesContext(connection) as first:
        assert post(client, attempt, 0, line[:1]).status_code == 200
    for offset in range(1, 4):
        with CaptureQueriesContext(connection) as later:
            answer = post(client, attempt, offset, line[offset : offset + 1])
        assert answer.status_code == 200 and answer.json()["offset"] == offset + 1
        statements = [query["sql"] for query in later.captured_queries]
        assert len(statements) == 1 and statements[0].startswith("UPDATE"), statements
        assert len(statements) < len(first.captured_queries)
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.log == line[:4] and stored.action_times == sorted(stored.action_times)


def test_a_post_through_another_process_meanwhile_is_seen_through_the_lock() -> None:
    """This process holds the attempt at 2 actions; another (a socket, another server
    process) stores a third. A stale post gets the 409 of the row, the right one is taken."""
    player, client, attempt, line = started()
    assert post(client, attempt, 0, line[:2]).status_code == 200
    attempt_push_actions(attempt_id=attempt.pk, player=player, offset=2, actions=line[2:3])
    stale = post(client, attempt, 2, line[3:4])
    assert stale.status_code == 409
    assert stale.json()["error"]["details"] == {"offset": 3}
    assert post(client, attempt, 3, line[3:5]).status_code == 200
    # and the other side's own cursor, stale in its turn, finds this process's posts
    other = PlayCursor()
    attempt_push_actions(
        attempt_id=attempt.pk, player=player, offset=5, actions=line[5:6], cursor=other
    )
    assert post(client, attempt, 6, line[6:7]).status_code == 200
    assert Attempt.objects.get(pk=attempt.pk).log == line[:7]


def test_another_player_gets_the_404_even_while_the_owners_cursor_is_held() -> None:
    _, client, attempt, line = started()
    assert post(client, attempt, 0, line[:1]).status_code == 200
    assert len(held_cursors) == 1
    intruder = client_for(make_player("intruder"))
    answer = post(intruder, attempt, 1, line[1:2])
    assert answer.status_code == 404
    assert Attempt.objects.get(pk=attempt.pk).log == line[:1]
    assert post(client, attempt, 1, line[1:2]).status_code == 200


def test_a_refused_post_leaves_nothing_held_and_changes_nothing() -> None:
    _, client, attempt, line = started()
    assert post(client, attempt, 0, line[:1]).status_code == 200
    refused = post(client, attempt, 1, ["zz"])
    assert refused.status_code == 400
    assert refused.json()["error"]["details"]["index"] == 1
    assert len(held_cursors) == 0
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.log == line[:1] and stored.action_count == 1


def test_the_store_keeps_only_the_most_recently_posted_attempts() -> None:
    store = HeldCursors(size=2)
    cursors = {}
    for attempt_id in (1, 2, 3):
        cursor = PlayCursor()
        cursor.attempt = Attempt(pk=attempt_id)
        cursors[attempt_id] = cursor
        store.give_back(attempt_id, cursor)
    assert len(store) == 2
    assert store.take(1) is not cursors[1]  # dropped: a new, empty cursor
    assert store.take(3) is cursors[3]
    assert store.take(3) is not cursors[3]  # taken out: a second request gets its own
