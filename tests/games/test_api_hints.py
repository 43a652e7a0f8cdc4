"""Hints in practice: along the deal's solution and along an earlier hint's line they come
without a search, and so does the step back onto one after a move of the player's own;
further off every known line the solver finds one, in the request in the embedded run
(tasks eager; a busy process says so) or on a real Celery worker otherwise."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from games.services import hints
from tests.factories import make_player
from tests.games.api_support import client_for
from tests.games.hints_support import (
    NO_SEARCH,
    hint,
    play,
    search_budget,
    start_off_the_solution,
    start_one_move_off,
    start_practice,
    start_where_a_deal_waits,
)

# With workers, a hint waits HINT_SECONDS + HINT_QUEUE_SECONDS for one: no worker answers in
# this, so only a known line can.
NO_TIME_TO_WAIT = 0.001


@contextmanager
def every_slot_taken(setting: str, settings: Any) -> Iterator[None]:
    """As if the process already ran as many hint searches (or waits) as ``setting`` allows."""
    slots = hints.process_slots(setting)
    count = getattr(settings, setting)
    for _ in range(count):
        assert slots.acquire(blocking=False)
    try:
        yield
    finally:
        for _ in range(count):
            slots.release()


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")  # the embedded run: search in the request
def test_hints_along_the_deals_solution_need_no_search(settings: Any) -> None:
    search_budget(settings, NO_SEARCH)
    client = client_for(make_player())
    attempt_id, solution = start_practice(client)
    for offset in range(5):
        answer = hint(client, attempt_id).json()
        assert answer["action"] == solution[offset]
        assert answer["moves_to_win"] == len(solution) - offset
        play(client, attempt_id, offset, answer["action"])


def no_search(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the hint searched: a known line was at hand")


@pytest.mark.django_db
@pytest.mark.parametrize("workers", [False, True], ids=["embedded", "with-workers"])
def test_one_move_off_the_line_the_hints_lead_to_a_win_without_any_search(
    workers: bool, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Neither the solver in the request nor a worker's task: the step back onto the
    # solution (a move of its own or undo) comes from the known line, then the hints follow.
    monkeypatch.setattr(hints.current_app.conf, "task_always_eager", not workers)
    monkeypatch.setattr(hints.solver, "solve", no_search)
    monkeypatch.setattr(hints.current_app, "send_task", no_search)
    settings.HINTS_PER_GAME = 10_000
    client = client_for(make_player())
    attempt_id, solution, board = start_one_move_off(client)
    first = hint(client, attempt_id).json()
    assert first["action"] in board.legal_actions(), first
    assert first["moves_to_win"] <= len(solution) + 1  # the undo, then the solution
    promised, played = first["moves_to_win"], len(board)
    answer = first
    while answer["action"] is not None and not board.is_won:
        play(client, attempt_id, played, answer["action"])
        board.push_text(answer["action"])
        played += 1
        if not board.is_won:
            answer = hint(client, attempt_id).json()
            assert answer["moves_to_win"] == promised - (played - 1), answer
    assert board.is_won
    assert played - 1 == promised  # the win came in as many actions as the first hint said


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")
def test_after_an_undo_back_onto_the_solution_the_hint_follows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hints.solver, "solve", no_search)
    client = client_for(make_player())
    attempt_id, solution, _ = start_one_move_off(client)
    play(client, attempt_id, 1, "undo")
    answer = hint(client, attempt_id).json()
    assert (answer["action"], answer["moves_to_win"]) == (solution[0], len(solution))


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")  # the embedded run: search in the request
def test_off_the_solution_the_solver_finds_a_line_and_later_hints_follow_it(
    settings: Any,
) -> None:
    client = client_for(make_player())
    attempt_id, board = start_off_the_solution(client)

    search_budget(settings)
    first = hint(client, attempt_id).json()
    assert first["status"] == "solved" and first["action"], first
    assert first["action"] in board.legal_actions()

    search_budget(settings, NO_SEARCH)
    play(client, attempt_id, len(board), first["action"])
    second = hint(client, attempt_id).json()
    assert second["action"] is not None, second
    assert second["moves_to_win"] == first["moves_to_win"] - 1


def assert_a_hint_fills_the_column_a_deal_waits_for(settings: Any) -> None:
    """Where players often leave Spider 1 suit (all face up, a deal left, columns empty) the
    hint's search, within the product's budget of positions, finds a line."""
    attempt_id, board = start_where_a_deal_waits(client := client_for(make_player()))
    search_budget(settings)
    answer = hint(client, attempt_id)
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "solved", answer.json()
    assert answer.json()["action"] in board.legal_actions()


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")  # the embedded run: search in the request
def test_a_hint_fills_the_column_a_waiting_deal_needs(settings: Any) -> None:
    assert_a_hint_fills_the_column_a_deal_waits_for(settings)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_with_workers_a_hint_fills_the_column_a_waiting_deal_needs(
    celery_worker: Any, settings: Any
) -> None:
    assert_a_hint_fills_the_column_a_deal_waits_for(settings)


def assert_one_position_finds_nothing(settings: Any) -> None:
    """Off the solution, a hint searched within a budget of one position, with ten minutes
    left on the clock: nothing found."""
    attempt_id, _ = start_off_the_solution(client := client_for(make_player()))
    search_budget(settings, NO_SEARCH)
    answer = hint(client, attempt_id)
    assert answer.status_code == 200, answer.content
    assert answer.json()["action"] is None and answer.json()["status"] == "unknown", answer
    assert answer.json()["message"] == "No hint found within the search's limit: play on."


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")  # the embedded run: search in the request
def test_a_hint_search_stops_at_its_budget_in_positions_with_time_to_spare(
    settings: Any,
) -> None:
    # The budget that ends a search is in positions, so a position gets the same answer on
    # any machine.
    assert_one_position_finds_nothing(settings)


@pytest.mark.django_db
@pytest.mark.usefixtures("tasks_in_process")  # the embedded run: search in the request
def test_a_hint_that_needs_a_search_while_the_process_is_busy_answers_503(
    settings: Any,
) -> None:
    search_budget(settings)
    client = client_for(make_player())
    attempt_id, _ = start_off_the_solution(client)
    with every_slot_taken("HINT_SOLVES_PER_PROCESS", settings):
        busy = hint(client, attempt_id)
    assert busy.status_code == 503
    assert busy.json()["error"]["code"] == "hints_busy"
    assert hint(client, attempt_id).status_code == 200  # free again


@pytest.mark.django_db
def test_with_workers_a_hint_asked_while_the_waits_are_taken_answers_503_without_queueing(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each hint waiting for a worker holds one of the process's HTTP threads: past
    # HINT_WAITS_PER_PROCESS the next is refused at once, so action posts keep their threads.
    def no_task(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a hint was queued although the process's waits were taken")

    monkeypatch.setattr(hints.current_app.conf, "task_always_eager", False)
    monkeypatch.setattr(hints.current_app, "send_task", no_task)
    client = client_for(make_player())
    attempt_id, _ = start_off_the_solution(client)
    with every_slot_taken("HINT_WAITS_PER_PROCESS", settings):
        began = time.monotonic()
        busy = hint(client, attempt_id)
        waited = time.monotonic() - began
    assert busy.status_code == 503
    assert busy.json()["error"]["code"] == "hints_busy"
    assert waited < settings.HINT_QUEUE_SECONDS  # refused at once, not after waiting


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_with_workers_the_search_runs_on_a_worker_not_in_the_web_process(
    celery_worker: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_search_here(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a hint searched in the web process")

    # The cache the worker keeps its line in (the web processes share it in production),
    # instead of this module's per-test local memory.
    settings.CACHES = {
        "default": {
            "BACKEND": "core.redis_cache.SharedRedisCache",
            "LOCATION": settings.REDIS_URL,
            "KEY_PREFIX": "astrocyte",
        }
    }
    client = client_for(make_player())
    attempt_id, board = start_off_the_solution(client)
    monkeypatch.setattr(hints.solver, "solve", no_search_here)

    search_budget(settings)  # sent to the worker with the task
    first = hint(client, attempt_id)
    assert first.status_code == 200, first.content
    answer = first.json()
    assert answer["status"] == "solved" and answer["action"] in board.legal_actions()

    play(
        client, attempt_id, len(board), answer["action"]
    )  # then along the worker's line: no search
    settings.HINT_SECONDS = NO_TIME_TO_WAIT
    settings.HINT_QUEUE_SECONDS = 0.0  # no worker could answer in time: only the line can
    second = hint(client, attempt_id).json()
    assert second["moves_to_win"] == answer["moves_to_win"] - 1


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_with_workers_the_hint_budget_in_positions_goes_with_the_task(
    celery_worker: Any, settings: Any
) -> None:
    # The worker's own settings are not the web process's: the budget travels with the task.
    assert_one_position_finds_nothing(settings)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_hint_not_back_from_the_workers_in_time_answers_503(
    celery_worker: Any, settings: Any
) -> None:
    client = client_for(make_player())
    attempt_id, _ = start_off_the_solution(client)
    settings.HINT_SECONDS = NO_TIME_TO_WAIT
    settings.HINT_QUEUE_SECONDS = 0.0  # no worker answers within a millisecond
    busy = hint(client, attempt_id)
    assert busy.status_code == 503 and busy.json()["error"]["code"] == "hints_busy"
