"""The complete search's graph (``games.solver.complete.PositionGraph``) with hooks, for
benches that count what the search meets without changing it."""

from __future__ import annotations

from collections.abc import Callable

from games.engine import Board, Move
from games.solver.complete import PositionGraph


class ProbedGraph:
    """A :class:`PositionGraph` that calls ``on_expanded(board)`` for each position the
    search expands and ``on_moves(board, moves)`` with each list of moves it will try."""

    def __init__(
        self,
        board: Board,
        on_expanded: Callable[[Board], None] | None = None,
        on_moves: Callable[[Board, list[Move]], None] | None = None,
    ) -> None:
        self.board = board
        self.graph = PositionGraph(board)
        self.on_expanded = on_expanded
        self.on_moves = on_moves

    def key(self) -> bytes:
        return self.graph.key()

    def moves(self) -> list[Move]:
        moves = self.graph.moves()
        if self.on_moves is not None:
            self.on_moves(self.board, moves)
        return moves

    def enter(self, move: Move) -> bool:
        return self.graph.enter(move)

    def leave(self) -> None:
        self.graph.leave()

    def expanded(self) -> None:
        if self.on_expanded is not None:
            self.on_expanded(self.board)
        self.graph.expanded()

    def finished(self) -> None:
        self.graph.finished()
