"""Following a known winning line after a player's move that left it (``repair.py``), and
``near_known_win``'s use of it: a position one action after a known win, decided without a
search, with a line the engine replays to a win."""

from __future__ import annotations

from games.engine import Board, Move, replay_on
from games.engine.moves import CELL, UNDO
from games.solver.decide import LOOK_NODES, KnownWins, Verdict, decide, near_known_win
from games.solver.repair import follow_after
from games.solver.tracking import Tracked, describe_line, play_steps


def _wins(board: Board, line: list[str]) -> bool:
    result = replay_on(board.copy(keep_history=False), line)
    return result.ok and result.won


def _off_the_line(deal: Board, line: list[str], known: KnownWins) -> list[tuple[Board, str]]:
    """(position, action) pairs along the first moves of ``line``: an action of the
    player's own that no move or two take back onto a known win."""
    found = []
    position = deal.copy(keep_history=False)
    for action in line[:10]:
        for move in position.legal_moves():
            if str(move) in (action, "deal"):
                continue
            after = position.copy(keep_history=False)
            after.push(move)
            if near_known_win(after, known).verdict == Verdict.UNKNOWN:
                found.append((position.copy(keep_history=False), str(move)))
        position.push_text(action)
    return found


def test_a_move_that_cannot_be_taken_back_gets_the_line_followed_without_a_search() -> None:
    deal = Board.deal("spider1", 2)
    known = KnownWins()
    assert decide(deal, 50_000, known=known).winnable
    cases = _off_the_line(deal, decide(deal, 50_000).line, known)
    followed = []
    for before, action in cases:
        after = before.copy(keep_history=False)
        after.push_text(action)
        decision = near_known_win(after, known, (before, action))
        if decision.winnable:
            assert _wins(after, decision.line)
            assert 0 < decision.nodes <= LOOK_NODES
            followed.append(action)
    assert followed  # some of the moves no look a move or two deep could decide


def test_a_step_the_players_move_made_impossible_is_patched() -> None:
    """Astrocyte deal 3's line soon puts a card on the second column's top card; the
    player's first move sends that card to a cell. The line as it was breaks there; followed
    with a patch, it still wins."""
    deal = Board.deal("astrocyte", 3)
    moves = [Move.parse(text, deal.variant) for text in decide(deal, 300_000).line]
    to_a_cell = next(m for m in deal.legal_moves() if m.src == 1 and m.dst >= CELL)
    as_it_was = Tracked(deal)
    steps = describe_line(deal, moves)
    as_it_was.push(to_a_cell)
    assert play_steps(as_it_was, steps) is None
    followed, played = follow_after(deal, moves, to_a_cell)
    after = deal.copy(keep_history=False)
    after.push(to_a_cell)
    assert followed is not None and played > 0
    assert _wins(after, [str(m) for m in followed])


def test_an_undo_or_a_spent_budget_gives_no_line() -> None:
    deal = Board.deal("spider1", 2)
    moves = [Move.parse(text, deal.variant) for text in decide(deal, 50_000).line]
    assert follow_after(deal, moves, UNDO) == (None, 0)
    action = next(m for m in deal.legal_moves() if str(m) not in (str(moves[0]), "deal"))
    line, played = follow_after(deal, moves, action, max_moves=5)
    assert line is None and played <= 5


def test_following_gives_the_same_line_every_time() -> None:
    deal = Board.deal("spider1", 2)
    moves = [Move.parse(text, deal.variant) for text in decide(deal, 50_000).line]
    action = next(m for m in deal.legal_moves() if str(m) not in (str(moves[0]), "deal"))
    assert follow_after(deal, moves, action) == follow_after(deal, moves, action)
