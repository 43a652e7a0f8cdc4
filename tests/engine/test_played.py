"""``Board.play``: the checked path that also tells what an action turned face up and sent
home, checked against the difference of the whole positions before and after it."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import Board, board_state

from .helpers import build

WALKS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def turned_up(before: dict[str, Any], after: dict[str, Any], text: str) -> list[dict[str, str]]:
    """The cards an action turned face up, read off the two whole positions."""
    if text == "undo":
        return []
    revealed = []
    if text == "deal":
        columns = len(before["tableau"])
        revealed += [
            {"pile": f"t{i + 1}", "card": c} for i, c in enumerate(before["stock"][:columns])
        ]
    for i, (down_before, down_after) in enumerate(
        zip(before["face_down"], after["face_down"], strict=True)
    ):
        cards = after["tableau"][i]
        revealed += [
            {"pile": f"t{i + 1}", "card": c}
            for c in cards[down_after : min(down_before, len(cards))]
        ]
    return revealed


def runs_sent_home(before: dict[str, Any], after: dict[str, Any]) -> int:
    """A run going home fills an empty foundation with 13 cards at once."""
    grown = (
        len(a) - len(b) for b, a in zip(before["foundations"], after["foundations"], strict=True)
    )
    return sum(max(0, n) for n in grown) // 13


@WALKS
@given(
    variant=st.sampled_from(["astrocyte", "spider1", "spider2", "spider4"]),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    data=st.data(),
)
def test_play_reports_exactly_the_cards_turned_up_and_the_runs_sent_home(
    variant: str, seed: int, data: st.DataObject
) -> None:
    board = Board.deal(variant, seed)
    for _ in range(120):
        actions = board.legal_actions()
        if not actions:
            break
        text = data.draw(st.sampled_from(actions))
        before = board_state(board)
        played = board.play(text)
        after = board_state(board)
        assert str(played.move) == text
        assert played.revealed_texts() == turned_up(before, after, text)
        assert played.runs_home == runs_sent_home(before, after)


def test_a_deal_that_completes_a_run_reports_the_dealt_card_and_the_run() -> None:
    # Column 1 holds K..2 of spades; the stock deals the Ace onto it: the run goes home.
    board = build(
        "spider1",
        tableau=["9S KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", *["9S 5S"] * 9],
        face_down=[1] * 10,
        stock=" ".join(["AS"] + ["4S"] * 9),
    )
    played = board.play("deal")
    assert played.runs_home == 1
    revealed = played.revealed_texts()
    assert revealed[0] == {"pile": "t1", "card": "AS"}  # dealt, then home with its run
    assert {"pile": "t1", "card": "9S"} in revealed  # the run's going turned it face up
    assert len(revealed) == 11
    assert board.play("undo").revealed == ()
