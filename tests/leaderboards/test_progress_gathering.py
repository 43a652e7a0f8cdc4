"""Progress rows are gathered in the process and handed to the shared buffer together
(leaderboards/live.py, ``Broadcaster._gather``): one hand-over and one window claim for all
the rows of a moment, a player's latest row only, and none lost to a hand-over that
never ran."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from core.live import wait_idle
from leaderboards import live, progress_buffer
from leaderboards.live import Broadcaster


@pytest.fixture
def handed_over(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[tuple[int, int]]]]:
    calls: list[tuple[int, list[tuple[int, int]]]] = []
    done = threading.Event()

    def add(prefix: str, challenge_id: int, rows: list[dict[str, Any]]) -> None:
        calls.append((challenge_id, sorted((row["attempt_id"], row["moves"]) for row in rows)))
        done.set()

    async def open_window(self: Broadcaster, kind: str, challenge_id: int) -> None:
        calls.append((-challenge_id, []))  # the claim, after the rows

    monkeypatch.setattr(progress_buffer, "add", add)
    monkeypatch.setattr(Broadcaster, "_open_window", open_window)
    return calls


def test_the_rows_of_a_moment_go_in_one_hand_over_with_one_claim(
    handed_over: list[tuple[int, list[tuple[int, int]]]],
) -> None:
    broadcaster = Broadcaster()
    for moves in range(1, 4):
        for attempt_id in (11, 12):
            broadcaster._gather((7, {"attempt_id": attempt_id, "moves": moves}))
    broadcaster._gather((8, {"attempt_id": 21, "moves": 1}))
    broadcaster._gather((None, {"attempt_id": 31, "moves": 1}))  # practice: no board
    assert wait_idle(5)  # every hand-over and claim made, and no other
    assert sorted(handed_over) == sorted(
        [(7, [(11, 3), (12, 3)]), (-7, []), (8, [(21, 1)]), (-8, [])]
    )
    assert handed_over.index((-7, [])) > handed_over.index((7, [(11, 3), (12, 3)]))
    handed_over.clear()
    broadcaster._gather((7, {"attempt_id": 11, "moves": 4}))  # a later moment: its own
    assert wait_idle(5)
    assert handed_over == [(7, [(11, 4)]), (-7, [])]


def test_a_hand_over_that_never_ran_does_not_hold_back_the_next_rows(
    handed_over: list[tuple[int, list[tuple[int, int]]]],
) -> None:
    broadcaster = Broadcaster()
    # as if one was scheduled on a loop that stopped before running it
    broadcaster._drain_due_since = time.monotonic() - live.DRAIN_LATE_SECONDS - 1
    broadcaster._gather((7, {"attempt_id": 11, "moves": 1}))
    assert wait_idle(5)
    assert handed_over == [(7, [(11, 1)]), (-7, [])]
