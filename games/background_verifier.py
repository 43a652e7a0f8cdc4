"""Deal verifications on a thread of their own: the embedded run's stand-in for a worker.

Without REDIS_URL there is no worker; the embedded beat (games/embedded_beat.py) hands the
deals that ``dailies_prepare`` queues to this verifier instead of solving them itself, so a
solver run of up to ``SOLVER_SECONDS`` never holds up the day's close, and no request ever
waits for one. Each deal is verified by the task body the workers run
(``games.deal_verify``: verify, then schedule a verified daily at once), one at a time,
daily-pool candidates before practice ones, each deal at most once in the queue.

The solver is pure Python: while it runs it shares the process's interpreter lock with
the request threads (docs/embedded.md has the measured cost).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable

from django.db import close_old_connections, connection

from games.models import Deal

log = logging.getLogger(__name__)

DAILY_FIRST: dict[str, int] = {Deal.Pool.DAILY: 0, Deal.Pool.PRACTICE: 1}
_STOP = -1  # a queue entry that ends the thread


def verify_as_the_worker_does(deal_id: int, force: bool = False) -> object:
    from games.tasks import deal_verify_task  # the task body, run in this thread

    return deal_verify_task(deal_id, force=force)


# The verifier of the embedded run serving this process, while it runs (for an admin's
# re-verification, queued here instead of run in the request).
running: BackgroundVerifier | None = None


class BackgroundVerifier:
    """A daemon thread that verifies the deals submitted to it, dailies first."""

    def __init__(self, verify: Callable[..., object] = verify_as_the_worker_does) -> None:
        self._verify = verify
        self._queue: queue.PriorityQueue[tuple[int, int, int]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Condition()
        self._waiting: set[int] = set()  # submitted, not yet started
        self._forced: set[int] = set()  # of those, to verify again even if verified
        self._busy = False
        self._thread: threading.Thread | None = None
        # Called on this thread after each deal with what the verification returned.
        self.after_each: Callable[[int, object], None] | None = None

    # --- the enqueue of dailies_prepare (any thread) ---

    def submit(self, deal_id: int, force: bool = False) -> None:
        with self._lock:
            if force:
                self._forced.add(deal_id)
            if deal_id in self._waiting:
                return  # prepare queues every pending deal each time: once is enough
            self._waiting.add(deal_id)
        pool = Deal.objects.filter(pk=deal_id).values_list("pool", flat=True).first()
        self._queue.put((DAILY_FIRST.get(pool or "", 1), next(self._order), deal_id))

    # --- life cycle ---

    def start(self) -> None:
        global running
        self._thread = threading.Thread(target=self._run, name="embedded-verifier", daemon=True)
        self._thread.start()
        running = self

    def stop(self, timeout: float = 1.0) -> None:
        """Ask the thread to end after its current deal. A solver run cannot be cut short:
        a deal still being verified when the process exits keeps its lease, and the next
        prepare releases it once the lease has run out."""
        global running
        if running is self:
            running = None
        self._queue.put((-1, -1, _STOP))
        if self._thread is not None:
            self._thread.join(timeout)

    def wait_until_idle(self, timeout: float) -> bool:
        """True once nothing is queued or being verified (for tests and benchmarks)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._waiting and not self._busy, timeout)

    # --- the thread ---

    def _run(self) -> None:
        while True:
            _priority, _order, deal_id = self._queue.get()
            if deal_id == _STOP:
                return
            with self._lock:
                self._waiting.discard(deal_id)
                force = deal_id in self._forced
                self._forced.discard(deal_id)
                self._busy = True
            close_old_connections()
            try:
                outcome = self._verify(deal_id, force=True) if force else self._verify(deal_id)
                if self.after_each is not None:
                    self.after_each(deal_id, outcome)
            except Exception:
                log.exception("embedded verification of deal %s failed", deal_id)
            finally:
                connection.close()
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()
