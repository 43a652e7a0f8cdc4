"""What partial-order reduction would cut from the proofs of loss (docs/solver.md, "What is
weak"): strong stubborn sets built at the level of columns, on the positions a complete
search expands in Spider.

    .venv/bin/python -m bench.stubborn_sets_bench [--classes 100000] [--variant spider4]
        [--seed 4] [--after 64]

The start is the position after ``--after`` actions of the lost game bench/lost_games_bench.py
plays on the deal (its reference player). At each position the search expands, the stubborn
set is built as classical planning builds a strong one (Wehrle & Helmert), with a move taken
to read and change only its two columns: start from the moves touching one non-empty column
(every winning line must touch it: a won position has every column empty), then close
under "a legal move brings in every move touching the columns it touches" and "a move not
legal yet brings in the moves that could make it legal", here those touching a column that
holds a card one rank above one of the column's movable cards, or one rank below its top
card. An empty column, or a deal still to come, brings in every column. The smallest set
over the choice of the first column is kept, and the line says how many legal moves it
would have left out. The search itself is unchanged (every move is still tried), so the
count is of moves, not of the classes a reduced search would save. Spider only: cells and
moves back from a foundation (Astrocyte) are not modelled.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from bench.graph_probe import ProbedGraph
from bench.lost_games_bench import lost_game
from games.engine import Board, Move, replay
from games.engine.board import RANK_MASK, run_length
from games.solver.complete import search_graph


def column_links(board: Board) -> list[set[int]]:
    """For each column, the columns whose moves its own moves bring into a stubborn set
    (all of them while a deal is still to come)."""
    columns = list(board.iter_columns())
    if board.deals_left:
        return [set(range(len(columns)))] * len(columns)
    empties = {j for j, (column, _) in enumerate(columns) if not column}
    filled = set(range(len(columns))) - empties
    holding: defaultdict[int, set[int]] = defaultdict(set)  # rank -> columns holding one
    for j, (column, _) in enumerate(columns):
        for card in column:
            holding[card & RANK_MASK].add(j)
    links = []
    for column, face_down in columns:
        if not column:
            links.append(filled)
            continue
        reached = set(empties)
        for card in column[len(column) - run_length(column, face_down) :]:
            reached |= holding.get((card & RANK_MASK) + 1, set())
        reached |= holding.get((column[-1] & RANK_MASK) - 1, set())
        links.append(reached)
    return links


def stubborn_columns(links: list[set[int]], first: int) -> set[int]:
    """The columns whose moves form the stubborn set grown from column ``first``."""
    chosen, todo = {first}, [first]
    while todo:
        for j in links[todo.pop()] - chosen:
            chosen.add(j)
            todo.append(j)
    return chosen


class CutCounts:
    """At each position the search expands, the legal moves a column-level stubborn set
    would leave out."""

    def __init__(self) -> None:
        self.positions = self.positions_cut = self.moves_all = self.moves_cut = 0

    def __call__(self, board: Board, moves: list[Move]) -> None:
        filled = [j for j, (column, _) in enumerate(board.iter_columns()) if column]
        if not moves or not filled:
            return
        links = column_links(board)
        kept = min((stubborn_columns(links, j) for j in filled), key=len)
        cut = sum(1 for m in moves if m.src >= 0 and m.src not in kept and m.dst not in kept)
        self.positions += 1
        self.moves_all += len(moves)
        self.moves_cut += cut
        self.positions_cut += cut > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=100_000)
    parser.add_argument("--variant", default="spider4", choices=["spider1", "spider2", "spider4"])
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--after", type=int, default=64)
    args = parser.parse_args()
    game = lost_game(args.variant, args.seed)
    if not game:
        raise SystemExit(f"the reference player wins {args.variant} deal {args.seed}")
    board = replay(args.variant, args.seed, game[: args.after]).board.copy(keep_history=False)
    probe = CutCounts()
    found = search_graph(ProbedGraph(board, on_moves=probe), args.classes, set())
    print(
        json.dumps(
            {
                "game": f"{args.variant}:{args.seed}",
                "after": args.after,
                "classes": found.nodes,
                "ended": "won" if found.won else "exhausted" if found.exhausted else "budget",
                "positions": probe.positions,
                "positions_with_a_cut": probe.positions_cut,
                "legal_moves": probe.moves_all,
                "moves_cut": probe.moves_cut,
            }
        )
    )


if __name__ == "__main__":
    main()
