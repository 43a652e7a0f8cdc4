"""Compact positions for the search: bytes to store, canonical bytes to deduplicate.

The solver reads the board's internals here (``_tab``, ``_down``, ``_cells``, ``_found``,
``_stock``, ``_stock_pos``) because building tuples through the public API for every node
would cost more than the search itself. Nothing here decides what is legal: moves always
come from ``Board.legal_moves()``.

Layout of a column chunk: ``bytes((len, face_down, *cards))``; the chunk carries its own
length, so chunks concatenate without ambiguity and sort as whole columns.

Bytes are put together with ``b"".join``, never ``+``: compiled by mypyc (1.19), a chain
of ``+`` on bytes leaks its intermediate results (tests/engine/test_native.py checks it).
"""

from __future__ import annotations

from games.engine import Board, Variant

Chunk = bytes


def column_chunk(column: list[int], face_down: int) -> Chunk:
    return bytes((len(column), face_down, *column))


def column_chunks(board: Board) -> list[Chunk]:
    return [column_chunk(col, down) for col, down in zip(board._tab, board._down, strict=True)]


def exact_foundations(board: Board) -> bytes:
    """The foundations (length, suit each) in their real order."""
    found = bytearray()
    for pile in board._found:
        found.append(len(pile))
        found.append(pile[0] >> 4 if pile else 0)
    return bytes(found)


def exact_tail(board: Board, foundations: bytes | None = None) -> bytes:
    """Cells, foundations (length, suit each) and the deals made, in their real order.

    ``foundations`` is :func:`exact_foundations` of the board when the caller has it.
    """
    if foundations is None:
        foundations = exact_foundations(board)
    dealt = board._stock_pos // board.variant.columns
    return b"".join((bytes(board._cells), foundations, bytes((dealt,))))


def deals_made(data: bytes) -> int:
    """The deals made in a position from :func:`encode` (the tail's last byte)."""
    return data[-1]


def foundations_key(board: Board) -> bytes:
    """The foundations as the canonical key sees them (sorted; Spider: the runs home)."""
    if board.variant.cells:
        # one byte a foundation: length * 4 + suit (length <= 13)
        return bytes(sorted((len(p) << 2 | p[0] >> 4) if p else 0 for p in board._found))
    return bytes((board._home // 13,))


def canonical_key(board: Board, chunks: list[Chunk], foundations: bytes | None = None) -> bytes:
    """Equal for positions that are the same game up to relabelling piles.

    ``foundations`` is :func:`foundations_key` of the board when the caller has it.
    Cells are interchangeable, and so are foundations (only their contents matter). Columns
    are interchangeable only once the stock is empty: a deal gives each column its own card.
    In Spider nothing comes back from a foundation, so only the number of cards home counts.
    """
    stock_left = board._stock_pos < len(board._stock)
    body = b"".join(chunks) if stock_left else b"".join(sorted(chunks))
    dealt = board._stock_pos // board.variant.columns
    if foundations is None:
        foundations = foundations_key(board)
    if board.variant.cells:
        return b"".join((body, bytes(sorted(board._cells)), foundations, bytes((dealt,))))
    return b"".join((body, foundations, bytes((dealt,))))


def encode(chunks: list[Chunk], tail: bytes) -> bytes:
    return b"".join([*chunks, tail])


def decode(variant: Variant, stock: list[int], data: bytes) -> tuple[Board, list[Chunk]]:
    """A fresh board (empty move stack) for ``data`` from :func:`encode`, and its chunks."""
    tableau: list[list[int]] = []
    face_down: list[int] = []
    chunks: list[Chunk] = []
    position = 0
    for _ in range(variant.columns):
        length = data[position]
        end = position + 2 + length
        chunks.append(data[position:end])
        face_down.append(data[position + 1])
        tableau.append(list(data[position + 2 : end]))
        position = end
    cells = list(data[position : position + variant.cells])
    position += variant.cells
    foundations: list[list[int]] = []
    for _ in range(variant.foundations):
        length, suit = data[position], data[position + 1]
        position += 2
        top = suit * 16 + 13
        foundations.append([top - k for k in range(length)])
    board = Board(
        variant, tableau, face_down, cells, foundations, stock, data[position] * variant.columns
    )
    return board, chunks
