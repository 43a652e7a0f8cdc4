"""Compound moves ("macros"): several transfers the search takes as one step.

A best-first search over single moves sees the classic Spider manoeuvre (put the cards that
cover a card aside, then use the card) as a climb: every card parked in a cell or on a
card of another suit raises the penalty before the gain comes. Taken as one step, the
manoeuvre is judged by where it ends. Two kinds:

* **join**: a movable group (the top of a column's one-suit run, or a cell card) goes onto
  the next card of its suit, which lies face up under other cards: those cards are put
  aside first, one one-suit segment at a time, top first;
* **dig**: every face-up card above a column's face-down cards is put aside, so that the
  next card turns over (or, with none face down, the column empties).

Putting a segment aside prefers the next card of its suit at the top of another column,
then a card of the next rank of another suit, then (a single card) a free cell, then an
empty column, then several cells card by card. Greedy and deterministic; every transfer is
checked with ``Board.refusal`` (the engine's rules) before it is played, so a macro is
always a sequence of legal moves. The single moves stay in the search: macros only add
children.
"""

from __future__ import annotations

from collections.abc import Iterator

from games.engine import Board, Move
from games.engine.cards import RANK_MASK
from games.engine.moves import CELL, TRANSFERS

# Most segments a macro puts aside (longer manoeuvres are left to the search).
MAX_ASIDE = 4


class Macro:
    """A compound step: its transfers in order (``src`` is the first one's, never a deal)."""

    __slots__ = ("moves", "src")

    def __init__(self, moves: tuple[Move, ...]) -> None:
        self.moves = moves
        self.src = moves[0].src

    def __repr__(self) -> str:
        return "Macro(" + " ".join(str(m) for m in self.moves) + ")"


def _plan_aside(
    tab: list[list[int]],
    tops: list[int],
    free: list[int],
    c: int,
    stop: int,
    avoid: int,
    use_empty: bool,
    plan: list[tuple[int, int, int]],
) -> bool:
    """Plan moving the cards of column ``c`` above index ``stop`` elsewhere; False if stuck.

    Works on ``tops`` (each column's top card, 0 when empty) and ``free`` (free cells, in
    order), both updated; appends (source, target, count) transfers to ``plan``.
    """
    col = tab[c]
    position = len(col)
    segments = 0
    columns = [j for j in range(len(tops)) if j != c and j != avoid]
    while position > stop:
        segments += 1
        if segments > MAX_ASIDE:
            return False
        k = position - 1
        while k > stop and col[k] + 1 == col[k - 1]:
            k -= 1
        seg = position - k
        bottom = col[k]
        want = bottom + 1
        want_rank = want & RANK_MASK
        dest = -1
        empty = -1
        for j in columns:
            top = tops[j]
            if top == want:
                dest = j
                break
            if not top:
                if empty < 0:
                    empty = j
            elif dest < 0 and (top & RANK_MASK) == want_rank:
                dest = j
        if dest < 0 and seg == 1 and free:
            plan.append((c, free.pop(0), 1))
        else:
            if dest < 0 and use_empty:
                dest = empty
            if dest >= 0:
                plan.append((c, dest, seg))
                tops[dest] = col[position - 1]
            elif len(free) >= seg:
                for _ in range(seg):
                    plan.append((c, free.pop(0), 1))
            else:
                return False
        position = k
    tops[c] = col[position - 1] if position else 0
    return True


def _play(board: Board, plan: list[tuple[int, int, int]], played: list[Move]) -> bool:
    """Play a plan, each transfer checked by the engine; False (and undone) if one is refused."""
    for src, dst, count in plan:
        move = TRANSFERS[src][dst][count]
        if board.refusal(move) is not None:
            _undo(board, played)
            return False
        board.push(move)
        played.append(move)
    return True


def _undo(board: Board, played: list[Move]) -> None:
    for _ in played:
        board.pop()
    played.clear()


def macro_children(board: Board) -> Iterator[tuple[Move, ...]]:
    """The joins and digs of this position that take at least two transfers.

    Each is yielded while ``board`` stands at its end (the caller reads the position and
    must leave the board as it found it); it is undone before the next one.
    """
    tab = board._tab
    down = board._down
    runs = board._run
    tops0 = [col[-1] if col else 0 for col in tab]
    free0 = [CELL + i for i, card in enumerate(board._cells) if not card]
    # columns whose top run could go somewhere at all (the first step of any put-aside)
    top_ranks = [top & RANK_MASK for top in tops0]
    has_empty = 0 in tops0
    n_free = len(free0)
    movable = [
        bool(col)
        and (has_empty or n_free >= runs[c] or ((col[-runs[c]] & RANK_MASK) + 1) in top_ranks)
        for c, col in enumerate(tab)
    ]
    # movable groups: a column's whole top run, or a cell card (source, count, bottom)
    groups = [(s, runs[s], col[-runs[s]]) for s, col in enumerate(tab) if col]
    groups.extend((CELL + i, 1, card) for i, card in enumerate(board._cells) if card)
    wanted = {g + 1 for _, _, g in groups}
    # face-up cards one of the groups could go on, covered (and not already holding the next
    # card of their suit), by code: where they lie
    covered: dict[int, list[tuple[int, int]]] = {}
    for j, col in enumerate(tab):
        for p in range(down[j], len(col) - 1):
            card = col[p]
            if card in wanted and col[p + 1] + 1 != card:
                if card in covered:
                    covered[card].append((j, p))
                else:
                    covered[card] = [(j, p)]
    played: list[Move] = []
    plan: list[tuple[int, int, int]] = []
    if covered:
        for s, k, g in groups:
            for t, p in covered.get(g + 1, ()):
                if t == s or not movable[t]:
                    continue
                plan.clear()
                if _plan_aside(tab, tops0[:], free0[:], t, p + 1, s, True, plan):
                    plan.append((s, t, k))
                    if _play(board, plan, played):
                        yield tuple(played)
                        _undo(board, played)
    for c, col in enumerate(tab):
        if not movable[c] or len(col) - down[c] <= runs[c]:
            continue  # nothing, stuck, or one segment only (a single move does it)
        plan.clear()
        if _plan_aside(tab, tops0[:], free0[:], c, down[c], -1, down[c] > 0, plan) and _play(
            board, plan, played
        ):
            yield tuple(played)
            _undo(board, played)
