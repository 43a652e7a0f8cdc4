"""Move notation (docs/rules.md, "Writing actions")."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from games.engine import (
    DEAL,
    UNDO,
    VARIANTS,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    MoveError,
)

from .helpers import build, refuse

# (variant, text, a word the message must contain)
INVALID = [
    ("astrocyte", "t9-t1", "no pile t9"),
    ("astrocyte", "t1-t9", "no pile t9"),
    ("astrocyte", "c5-t1", "no pile c5"),
    ("astrocyte", "t1-c5", "no pile c5"),
    ("astrocyte", "f9-t1", "no pile f9"),
    ("astrocyte", "t1-f9", "no pile f9"),
    ("spider1", "t11-t1", "no pile t11"),
    ("spider1", "t1-c1", "no cells"),
    ("spider2", "c1-t1", "no cells"),
    ("spider4", "c4-t10", "no cells"),
    ("spider4", "f1-c1", "no cells"),
    ("astrocyte", "t1-t1", "same pile"),
    ("astrocyte", "c2-c2", "same pile"),
    ("spider1", "f3-f3", "same pile"),
    ("astrocyte", "t1-t2:0", "no leading zeros"),
    ("astrocyte", "t1-t2:1", "only for n of 2 or more"),
    ("astrocyte", "t1-t2:01", "no leading zeros"),
    ("astrocyte", "t1-t2:02", "no leading zeros"),
    ("astrocyte", "t1-c1:2", "column to a column"),
    ("astrocyte", "c1-t2:2", "column to a column"),
    ("astrocyte", "f1-t2:2", "column to a column"),
    ("astrocyte", "t1-f1:2", "column to a column"),
    ("astrocyte", "T1-T2", "lower case"),
    ("astrocyte", "t1-T2", "lower case"),
    ("astrocyte", "DEAL", "lower case"),
    ("astrocyte", "Undo", "lower case"),
    ("astrocyte", "x", "not an action"),
    ("astrocyte", "", "empty"),
    ("astrocyte", "t01-t2", "no leading zeros"),
    ("astrocyte", "t1-t02", "no leading zeros"),
    ("astrocyte", "t0-t2", "start at 1"),
    ("astrocyte", "c0-t2", "start at 1"),
    ("astrocyte", " t1-t2", "no spaces"),
    ("astrocyte", "t1-t2 ", "no spaces"),
    ("astrocyte", "t1 - t2", "no spaces"),
    ("astrocyte", "deal ", "no spaces"),
    ("astrocyte", "t1-t2\n", "no spaces|not an action"),
    ("astrocyte", "t1-t2:", "not an action"),
    ("astrocyte", "t1-t2:-2", "not an action"),
    ("astrocyte", "t1-t2:+2", "not an action"),
    ("astrocyte", "t1-t2:2:3", "not an action"),
    ("astrocyte", "t1t2", "not an action"),
    ("astrocyte", "t1-", "not an action"),
    ("astrocyte", "s1-t2", "not an action"),
    ("astrocyte", "t1-t2:x", "not an action"),
    ("astrocyte", "t\uff11-t2", "not an action"),  # a full-width digit is no digit here
    ("astrocyte", "t1\u2013t2", "not an action"),  # an en dash
    ("astrocyte", "deals", "not an action"),
    ("astrocyte", "redo", "not an action"),
]

NOT_STRINGS: list[Any] = [1, 0, 1.5, None, True, ["t1-t2"], {"action": "deal"}, b"deal"]


@pytest.mark.parametrize(("variant", "text", "why"), INVALID, ids=[repr(t) for _, t, _ in INVALID])
def test_invalid_text(variant: str, text: str, why: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        Move.parse(text, VARIANTS[variant])
    error = caught.value
    assert error.kind == "invalid"
    assert error.action == text
    assert error.index is None
    assert re.search(why, error.message), error.message
    assert isinstance(error, ValueError) and isinstance(error, MoveError)
    assert not isinstance(error, IllegalMoveError)


@pytest.mark.parametrize(("variant", "text", "why"), INVALID, ids=[repr(t) for _, t, _ in INVALID])
def test_invalid_text_is_refused_by_the_board_whatever_the_position(
    variant: str, text: str, why: str
) -> None:
    columns = VARIANTS[variant].columns
    board = build(variant, tableau=[f"{r}S" for r in "23456789TJ"[:columns]], stock="AH " * columns)
    refuse(board, text, kind="invalid", match=why)


@pytest.mark.parametrize("item", NOT_STRINGS, ids=repr)
@pytest.mark.parametrize("variant", ["astrocyte", "spider2"])
def test_anything_but_a_string_is_invalid(item: Any, variant: str) -> None:
    with pytest.raises(InvalidMoveError, match="string") as caught:
        Move.parse(item, VARIANTS[variant])
    assert caught.value.action is item or caught.value.action == item
    board = Board.deal(variant, 1)
    before = board.copy()
    with pytest.raises(InvalidMoveError):
        board.push_text(item)
    assert board == before


# (variant, text): well-formed, so parse accepts them; the rules refuse them (test_rules_*)
WELL_FORMED = [
    ("astrocyte", "t1-f1"),
    ("astrocyte", "c1-f1"),
    ("astrocyte", "f1-f2"),
    ("astrocyte", "c1-c2"),
    ("astrocyte", "t1-t2:14"),
    ("astrocyte", "t8-c4"),
    ("astrocyte", "f8-c4"),
    ("spider1", "f1-t1"),
    ("spider1", "t10-t1:13"),
    ("spider4", "t1-f8"),
]


@pytest.mark.parametrize(("variant", "text"), WELL_FORMED)
def test_well_formed_text_parses_and_formats_back(variant: str, text: str) -> None:
    move = Move.parse(text, VARIANTS[variant])
    assert str(move) == text
    assert Move.parse(text) == move


def test_parse_without_a_variant_accepts_the_piles_some_variant_has() -> None:
    for text in ("t10-t1", "c4-t1", "f8-c1", "t1-t10:13"):
        assert str(Move.parse(text)) == text
    for text in ("t11-t1", "c5-t1", "f9-t1", "t0-t1"):
        with pytest.raises(InvalidMoveError):
            Move.parse(text)


def test_deal_and_undo() -> None:
    assert Move.parse("deal") == DEAL and DEAL.is_deal and not DEAL.is_undo
    assert Move.parse("undo") == UNDO and UNDO.is_undo and not UNDO.is_deal
    assert str(DEAL) == "deal" and str(UNDO) == "undo"
    assert DEAL.source is None and DEAL.destination is None


def test_move_names_its_piles() -> None:
    move = Move.parse("t3-t5:4")
    assert (move.source, move.destination, move.count) == ("t3", "t5", 4)
    move = Move.parse("f2-c1")
    assert (move.source, move.destination, move.count) == ("f2", "c1", 1)
    assert Move.parse("t3-t5:4") != Move.parse("t3-t5:3") != Move.parse("t3-t5")


REPR_EXAMPLES = ["t3-t5:4", "t10-t1:13", "c1-t4", "f2-t7", "t2-c1", "deal", "undo"]


@pytest.mark.parametrize("text", REPR_EXAMPLES)
def test_repr_evaluates_back(text: str) -> None:
    move = Move.parse(text)
    assert repr(move) == f"Move.parse({text!r})"
    assert eval(repr(move), {"Move": Move}) == move


def all_texts(variant: str) -> list[str]:
    """Every canonical action text of a variant, built from docs/rules.md's grammar."""
    v = VARIANTS[variant]
    piles = (
        [f"t{i}" for i in range(1, v.columns + 1)]
        + [f"c{i}" for i in range(1, v.cells + 1)]
        + [f"f{i}" for i in range(1, 9)]
    )
    texts = ["deal", "undo"]
    for src, dst in itertools.permutations(piles, 2):
        texts.append(f"{src}-{dst}")
        if src[0] == dst[0] == "t":
            texts += [f"{src}-{dst}:{n}" for n in range(2, 14)]
    return texts


@pytest.mark.parametrize("variant", ["astrocyte", "spider1", "spider2", "spider4"])
def test_round_trip_over_every_action_of_the_variant(variant: str) -> None:
    texts = all_texts(variant)
    moves = [Move.parse(text, VARIANTS[variant]) for text in texts]
    assert [str(m) for m in moves] == texts
    assert [Move.parse(str(m), VARIANTS[variant]) for m in moves] == moves
    assert len(set(moves)) == len(texts)  # no two texts name the same action
    expected = 2 + (20 * 19 + 8 * 7 * 12 if variant == "astrocyte" else 18 * 17 + 10 * 9 * 12)
    assert len(texts) == expected


@pytest.mark.parametrize("variant", ["astrocyte", "spider1"])
def test_parse_accepts_exactly_the_grammar(variant: str) -> None:
    """Over a box of near-miss texts, parse accepts exactly the canonical ones."""
    canonical = set(all_texts(variant))
    numbers = ["0", "1", "2", "8", "9", "10", "11", "01", "4"]
    candidates = {
        f"{a}{i}-{b}{j}{suffix}"
        for a in "tcfT"
        for b in "tcf"
        for i in numbers
        for j in numbers
        for suffix in ("", ":0", ":1", ":2", ":13", ":01")
    }
    for text in sorted(candidates):
        try:
            Move.parse(text, VARIANTS[variant])
            accepted = True
        except InvalidMoveError:
            accepted = False
        assert accepted == (text in canonical), text


def test_every_generated_move_round_trips() -> None:
    for variant in ("astrocyte", "spider1", "spider2", "spider4"):
        board = Board.deal(variant, 2024)
        for _ in range(30):
            moves = board.legal_moves()
            for move in moves:
                assert Move.parse(str(move), board.variant) == move
            if not moves:
                break
            board.push(moves[len(moves) // 2])


def test_errors_carry_action_index_kind_and_message() -> None:
    invalid = InvalidMoveError("x", "not an action")
    illegal = IllegalMoveError("t1-f1", "no card is played to a foundation by hand")
    assert invalid.as_dict() == {
        "index": None,
        "action": "x",
        "kind": "invalid",
        "message": "not an action",
    }
    assert illegal.at(7) is illegal
    assert illegal.as_dict() == {
        "index": 7,
        "action": "t1-f1",
        "kind": "illegal",
        "message": "no card is played to a foundation by hand",
    }
    assert str(illegal) == "action 7 't1-f1': no card is played to a foundation by hand"
    assert str(invalid) == "'x': not an action"
