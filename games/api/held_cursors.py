"""The play cursors an HTTP server process holds between one action post and the next.

A play socket keeps one ``PlayCursor`` for its attempt; HTTP posts have no connection to
keep it on, so each server process keeps the cursors of the attempts it was last posted
to, here, and a post takes its attempt's cursor for the time of the request. With one the
batch is decided on what the cursor holds and written by one conditional ``UPDATE``: no
row lock, no transaction, no replay (``games.services.attempts.attempt_push_actions``).

Nothing here is trusted: the write is on condition that the row still holds the log the
cursor saw, and any other case (another process or a socket played meanwhile, a refusal,
a retry, a win, the day over, another player) takes the locked path, which reads the row.
A post that finds no cursor (the first, one that went to another process, two posts of
one attempt at once) takes the locked path too and leaves its cursor for the next.

At most ``HELD_CURSORS`` are kept, the least recently posted to dropped first; a cursor
holds the attempt's row, its player and one board: about 14 KiB 60 actions into a game
(measured with tracemalloc), so 14 MiB a process at most. (The web client plays over
its socket, which holds its own cursor: these are the API clients'.)
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from games.services.attempts import PlayCursor

HELD_CURSORS = 1024


class HeldCursors:
    """A bounded, thread-safe store of play cursors by attempt id; a cursor is taken out
    for the time of one request, so two requests never share one."""

    def __init__(self, size: int = HELD_CURSORS) -> None:
        self.size = size
        self._cursors: OrderedDict[int, PlayCursor] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, attempt_id: int) -> PlayCursor:
        """The attempt's held cursor, taken out of the store, or a new empty one."""
        with self._lock:
            cursor = self._cursors.pop(attempt_id, None)
        return cursor if cursor is not None else PlayCursor()

    def give_back(self, attempt_id: int, cursor: PlayCursor) -> None:
        """Keep ``cursor`` for the attempt's next post if it holds the attempt still open."""
        if cursor.attempt is None or cursor.attempt.pk != attempt_id:
            return
        with self._lock:
            self._cursors[attempt_id] = cursor
            self._cursors.move_to_end(attempt_id)
            while len(self._cursors) > self.size:
                self._cursors.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._cursors.clear()

    def __len__(self) -> int:
        return len(self._cursors)


held_cursors = HeldCursors()
