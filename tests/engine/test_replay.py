"""Replaying move logs (docs/rules.md, "The command line": the replay object)."""

from __future__ import annotations

import json

import pytest

from games.engine import (
    Board,
    LogFormatError,
    ReplayResult,
    board_state,
    parse_log,
    replay,
    replay_on,
)

from .helpers import build, run

KEYS = ["ok", "applied", "won", "actions", "error", "state"]


def test_a_clean_replay() -> None:
    result = replay("astrocyte", 0, "t3-t1 t6-t4 deal")
    data = result.as_dict()
    assert list(data) == KEYS
    assert data["ok"] is True and data["error"] is None
    assert data["applied"] == data["actions"] == 3
    assert data["won"] is False
    expected = Board.deal("astrocyte", 0)
    for text in ("t3-t1", "t6-t4", "deal"):
        expected.push_text(text)
    assert data["state"] == board_state(expected)
    assert json.loads(json.dumps(data)) == data


def test_text_json_and_list_logs_agree() -> None:
    text = "t3-t1\nt6-t4\t deal  undo"
    as_json = json.dumps(["t3-t1", "t6-t4", "deal", "undo"])
    as_list = ["t3-t1", "t6-t4", "deal", "undo"]
    logs = (text, as_json, "  " + as_json + "\n", as_list)
    results = [replay("astrocyte", 0, log).as_dict() for log in logs]
    assert all(r == results[0] for r in results)
    assert results[0]["applied"] == 4


@pytest.mark.parametrize("log", ["", "   \n", "[]", " [ ] ", []])
def test_an_empty_log(log: str) -> None:
    data = replay("spider1", 3, log).as_dict()
    assert data["ok"] and data["applied"] == data["actions"] == 0
    assert data["state"] == board_state(Board.deal("spider1", 3))


def test_an_invalid_action_stops_the_replay_at_its_index() -> None:
    data = replay("astrocyte", 0, "t3-t1 t6-t4 t9-t1 deal").as_dict()
    assert list(data) == KEYS
    assert data["ok"] is False
    assert data["applied"] == 2
    assert data["actions"] == 4
    assert list(data["error"]) == ["index", "action", "kind", "message"]
    assert data["error"]["index"] == 2
    assert data["error"]["action"] == "t9-t1"
    assert data["error"]["kind"] == "invalid"
    assert "t9" in data["error"]["message"]
    assert data["state"] == replay("astrocyte", 0, "t3-t1 t6-t4").as_dict()["state"]


def test_an_illegal_action_stops_the_replay_at_its_index() -> None:
    data = replay("astrocyte", 0, "deal deal deal deal deal deal t1-c1").as_dict()
    assert data["ok"] is False
    assert (data["applied"], data["actions"]) == (5, 7)
    assert data["error"] == {
        "index": 5,
        "action": "deal",
        "kind": "illegal",
        "message": "the stock is empty: all 5 deals have been made",
    }
    assert data["state"]["stock"] == []


@pytest.mark.parametrize("log", ["undo", "t1-f1", "t1-t2:5"])
def test_an_illegal_first_action(log: str) -> None:
    data = replay("astrocyte", 0, log).as_dict()
    assert data["applied"] == 0 and data["error"]["index"] == 0
    assert data["error"]["kind"] == "illegal"
    assert data["state"] == board_state(Board.deal("astrocyte", 0))


@pytest.mark.parametrize("item", [5, None, True, ["t1-c1"], {"a": 1}, 1.5])
def test_a_json_item_that_is_not_a_string_is_invalid_at_its_index(item: object) -> None:
    log = json.dumps(["t3-t1", "deal", item, "undo"])
    data = replay("astrocyte", 0, log).as_dict()
    assert data["ok"] is False
    assert data["applied"] == 2 and data["actions"] == 4
    assert data["error"]["index"] == 2
    assert data["error"]["action"] == item
    assert data["error"]["kind"] == "invalid"
    assert "string" in data["error"]["message"]
    json.dumps(data)  # still printable


@pytest.mark.parametrize("log", ["[", '["deal"', '["deal",]', "[deal]", '["deal"] undo', "[1,,2]"])
def test_broken_json_raises_log_format_error(log: str) -> None:
    with pytest.raises(LogFormatError, match="JSON"):
        replay("astrocyte", 0, log)
    with pytest.raises(ValueError):
        parse_log(log)


def test_parse_log() -> None:
    assert parse_log("t1-t2  deal\nundo") == ["t1-t2", "deal", "undo"]
    assert parse_log('["t1-t2", "deal"]') == ["t1-t2", "deal"]
    assert parse_log('[1, null, "x"]') == [1, None, "x"]
    assert parse_log(["T1-T2", 4]) == ["T1-T2", 4]  # judged later, at replay
    # text that does not start with '[' is not JSON, whatever it holds
    assert parse_log('deal ["undo"]') == ["deal", '["undo"]']


def test_replay_accepts_a_seed_range_and_refuses_others() -> None:
    assert replay("spider4", 2**64 - 1, "").ok
    with pytest.raises(ValueError):
        replay("spider4", 2**64, "")
    with pytest.raises(ValueError):
        replay("spider9", 0, "")


# -- a whole won game -----------------------------------------------------------------------


def near_won() -> Board:
    # seven foundations home; the clubs are split over three columns and a cell
    return build(
        tableau=["QD " + run("C", "K", "8"), run("C", "7", "4"), "3C", "9H", "2C"],
        face_down=[1],
        cells=[None, "AC"],
        foundations=[run(s) for s in "SHDSHDC"] + [""],
    )


def test_winning_a_game_and_nothing_after_it() -> None:
    log = ["t2-t1:4", "t3-t1", "undo", "t3-t1", "t5-t1", "c2-t1", "t4-c1"]
    result = replay_on(near_won(), log)
    assert isinstance(result, ReplayResult)
    data = result.as_dict()
    # an undo on the way; the sixth action sends the clubs home and wins
    assert data["won"] is True
    assert data["applied"] == 6 and data["actions"] == 7
    assert data["error"]["index"] == 6 and data["error"]["kind"] == "illegal"
    assert "won" in data["error"]["message"]
    state = data["state"]
    assert state["won"] is True
    assert state["foundations"][7] == run("C").split()
    assert all(len(f) == 13 for f in state["foundations"])
    assert state["tableau"][:5] == [["QD"], [], [], ["9H"], []]


def test_winning_then_undo_is_refused() -> None:
    result = replay_on(near_won(), ["t2-t1:4", "t3-t1", "t5-t1", "c2-t1", "undo"])
    assert result.won and result.applied == 4
    assert result.error is not None and result.error.index == 4
    assert result.error.action == "undo"


def test_replay_on_counts_indexes_from_an_offset() -> None:
    board = Board.deal("astrocyte", 0)
    result = replay_on(board, ["t3-t1", "t9-t1"], first_index=10)
    assert result.board is board
    assert result.error is not None and result.error.index == 11
    assert result.applied == 1
