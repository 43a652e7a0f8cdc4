"""The decisions of a batch (games.services.batches.play_batch), without a database.

Properties over random deals and random legal walks cut into random batches, beside the
engine's own (tests/engine/test_properties.py): played batch by batch the log ends where
one replay of it ends, a retry is answered as the first time, the clock never runs back,
and every refusal says what and where.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import Board, board_view, replay
from games.errors import (
    ActionRefusedError,
    AttemptOverError,
    NotStartedError,
    OffsetConflictError,
)
from games.services.batches import Batch, GameSoFar, play_batch

FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
variants = st.sampled_from(["astrocyte", "spider1", "spider2", "spider4"])
seeds = st.integers(min_value=0, max_value=2**64 - 1)


def fresh(variant: str, seed: int, **changes: object) -> GameSoFar:
    game = GameSoFar(
        dealt=lambda: Board.deal(variant, seed), log=[], action_times=[], started_at=T0, over=False
    )
    return dataclasses.replace(game, **changes)  # type: ignore[arg-type]


def stored(game: GameSoFar, batch: Batch, actions: list[str]) -> GameSoFar:
    """The game after an accepted batch is written, as attempt_push_actions writes it."""
    return dataclasses.replace(
        game,
        log=[*game.log, *actions],
        action_times=[*game.action_times, *([batch.elapsed] * len(actions))],
        over=batch.won,
    )


def answer(batch: Batch) -> tuple[object, ...]:
    """What the player is told of a batch (the API renders these)."""
    return (
        batch.offset,
        batch.state,
        batch.revealed,
        batch.legal_actions,
        batch.elapsed_seconds,
        batch.score,
        batch.won,
    )


def walk_in_batches(
    data: st.DataObject, variant: str, seed: int, steps: int
) -> tuple[GameSoFar, list[tuple[int, list[str], Batch]]]:
    """Random legal actions in random batches of 1 to 4, each played at a random moment (often
    earlier than the last: clocks of other servers differ)."""
    game = fresh(variant, seed)
    board = Board.deal(variant, seed)
    played: list[tuple[int, list[str], Batch]] = []
    while len(game.log) < steps and not game.over:
        actions: list[str] = []
        for _ in range(data.draw(st.integers(1, 4))):
            legal = board.legal_actions()
            if not legal:
                break
            actions.append(data.draw(st.sampled_from(legal)))
            board.push_text(actions[-1])
        if not actions:
            break
        now = T0 + dt.timedelta(seconds=data.draw(st.floats(0, 600, allow_nan=False)))
        offset = len(game.log)
        batch = play_batch(game, offset, actions, now)
        assert not batch.retry
        played.append((offset, actions, batch))
        game = stored(game, batch, actions)
    return game, played


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_batch_by_batch_the_log_ends_where_its_replay_ends(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, played = walk_in_batches(data, variant, seed, steps=40)
    if not played:
        return
    whole = replay(variant, seed, list(game.log))
    assert whole.error is None
    assert board_view(played[-1][2].board) == board_view(whole.board)
    assert played[-1][2].offset == len(game.log)


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_retry_of_any_stored_batch_is_answered_as_the_first_time(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, played = walk_in_batches(data, variant, seed, steps=30)
    if not played:
        return
    offset, actions, first = data.draw(st.sampled_from(played))
    later = T0 + dt.timedelta(hours=data.draw(st.integers(1, 30)))
    again = play_batch(game, offset, actions, later)
    assert again.retry
    assert answer(again) == answer(first)
    # even once the game is over (won, resigned, closed with its day)
    over = dataclasses.replace(game, over=True, end_reason="resigned")
    assert answer(play_batch(over, offset, actions, later)) == answer(first)


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_the_clock_starts_at_the_start_and_never_runs_back(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, _ = walk_in_batches(data, variant, seed, steps=30)
    times = list(game.action_times)
    assert times == sorted(times)
    assert all(t >= 0 for t in times)


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_any_other_offset_is_a_conflict_naming_the_log_length(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, _ = walk_in_batches(data, variant, seed, steps=20)
    if game.over:
        return
    legal = game.board_at(len(game.log)).legal_actions()
    wrong = data.draw(
        st.integers(0, len(game.log) + 5).filter(
            lambda n: n != len(game.log) and list(game.log[n : n + 1]) != legal[:1]
        )
    )
    with pytest.raises(OffsetConflictError) as caught:
        play_batch(game, wrong, legal[:1], T0 + dt.timedelta(seconds=700))
    assert caught.value.details == {"offset": len(game.log)}
    assert caught.value.http_status == 409


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_refused_action_is_located_in_the_log_and_nothing_is_accepted(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, _ = walk_in_batches(data, variant, seed, steps=20)
    if game.over:
        return
    board = game.board_at(len(game.log))
    good: list[str] = []
    for _ in range(data.draw(st.integers(0, 3))):
        legal = board.legal_actions()
        if not legal:
            break
        good.append(data.draw(st.sampled_from(legal)))
        board.push_text(good[-1])
    bad = data.draw(st.sampled_from(["t1-zz", "x9", "f1-t1", ""]))
    with pytest.raises(ActionRefusedError) as caught:
        play_batch(game, len(game.log), [*good, bad], T0 + dt.timedelta(seconds=700))
    details = caught.value.details
    assert details["index"] == len(game.log) + len(good)
    assert details["action"] == bad
    assert caught.value.code in {"invalid_action", "illegal_action"}
    assert f"Action {details['index']} ({bad!r}) refused" in str(caught.value)


def test_a_game_over_refuses_new_actions_with_why_it_ended() -> None:
    game = fresh("spider1", 7, over=True, end_reason="day_closed", closed_why="The day is over.")
    with pytest.raises(AttemptOverError) as caught:
        play_batch(game, 0, ["deal"], T0)
    assert str(caught.value) == "The day is over."
    assert caught.value.details == {"offset": 0, "end_reason": "day_closed"}
    plain = fresh("spider1", 7, over=True, end_reason="resigned")
    with pytest.raises(AttemptOverError, match="no more actions"):
        play_batch(plain, 0, ["deal"], T0)


def test_before_the_start_signal_the_race_says_how_long_to_wait() -> None:
    game = fresh("spider1", 7, started_at=T0 + dt.timedelta(seconds=2.5))
    with pytest.raises(NotStartedError) as caught:
        play_batch(game, 0, ["deal"], T0)
    assert caught.value.details["seconds"] == 2.5
    assert "starts in 2.5 s" in str(caught.value)
    # at the signal it plays, at 0 s
    batch = play_batch(game, 0, ["deal"], T0 + dt.timedelta(seconds=2.5))
    assert batch.elapsed == 0.0


@FAST
@given(variant=variants, seed=seeds, data=st.data())
def test_a_known_position_answers_as_a_replay_of_the_log(
    variant: str, seed: int, data: st.DataObject
) -> None:
    game, played = walk_in_batches(data, variant, seed, steps=30)
    if not played or game.over:
        return
    last = played[-1][2]
    legal = game.board_at(len(game.log)).legal_actions()
    actions = [data.draw(st.sampled_from(legal))] if legal else ["deal"]
    now = T0 + dt.timedelta(seconds=900)
    known = dataclasses.replace(game, known=(last.offset, last.board))
    try:
        replayed = answer(play_batch(game, len(game.log), actions, now))
    except ActionRefusedError as refused:
        with pytest.raises(ActionRefusedError) as again:
            play_batch(known, len(game.log), actions, now)
        assert again.value.details == refused.details
        return
    assert answer(play_batch(known, len(game.log), actions, now)) == replayed
    # and the held board is not changed by playing from it
    assert board_view(last.board) == board_view(game.board_at(len(game.log)))
    # a known position of another length is not used
    stale = dataclasses.replace(game, known=(last.offset - 1, last.board))
    assert answer(play_batch(stale, len(game.log), actions, now)) == replayed
