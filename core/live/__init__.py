"""The live fan-out: from a committed change to the WebSocket of everyone watching it.

The apps use the names in ``__all__`` and nothing else of this package (an
import-linter contract in pyproject.toml checks it); what a message says and when it is
sent is theirs (``leaderboards.live``, ``rooms.services``), how it travels is this
package's. One message on its way, and the thread or loop each step runs in:

1. **The committing thread** (a request, a play thread, a Celery task, the admin). A
   receiver of an ``on_commit`` signal calls ``broadcast(group, event_type, payload)``, or
   ``submit(make)`` for a push that must read the database first. Either returns at once
   and never raises: the work is handed to the broadcasting loop
   (``broadcasting.py``).
2. **The broadcasting loop**: the event loop of this process's WebSocket consumers once
   one has connected (``register_consumer_loop``, called by every consumer on connect),
   else a daemon thread's loop of its own (a Celery worker, the admin). A push that needs
   the database reads it on a worker thread (``in_worker_thread``); ``send`` encodes the
   payload to JSON once and hands ``{"type": event_type, "text": json}`` to the channel
   layer's ``group_send``, with a timeout. A failure is one warning line and a count
   (``losses.py``), never an exception: the data is safe in the database.
3. **The channel layer.** Full stack: channels-redis' pub/sub layer with a bounded
   queue per channel and a receiver that gives up on a dead connection
   (``channel_layer.py``, the ``CHANNEL_LAYERS`` backend ``core.live.PubSubChannelLayer``):
   one PUBLISH per group, one delivery per subscribed web process. Embedded run:
   Channels' in-memory layer, which reaches the consumers of the broadcasting loop only
   (hence rule 2: that loop is theirs).
4. **Every web process's event loop.** The process is subscribed to a group once, on
   its first local member (``group_fanout.py``); one reader task takes each message off
   that subscription and hands it to every local member (``deliver``, a plain call),
   giving the loop a turn every 256 deliveries.
5. **The same loop, one socket.** Each member is a ``GroupMember`` consumer
   (``consumers.py``): the message goes into the socket's bounded mailbox (100; the
   oldest goes first) and is sent at once, in the reader's turn, when the socket has room
   (``eager_start.py``), else by a task of its own. The handler named after the event
   type (``board.update`` → ``board_update``) writes the frame: the ``text`` as it is, or
   parsed and completed (a watcher's own rank).

A Redis that goes away closes the members of the lost groups 4503
(``CLOSE_UNAVAILABLE``); a socket that fails is closed 1011; everything dropped on the way
is counted in ``astrocyte_live_losses_total{where}``. Design, figures and every private
name of another library reached here, each with the test that pins it: docs/live.md.
"""

from __future__ import annotations

from core.live.broadcasting import (
    broadcast,
    in_worker_thread,
    register_consumer_loop,
    send,
    submit,
    wait_idle,
)
from core.live.channel_layer import PubSubChannelLayer, prefix_for
from core.live.consumers import (
    CLOSE_UNAVAILABLE,
    NO_CHANNEL_LAYER,
    DirectDispatch,
    GroupMember,
    UnknownPathDenier,
    Watcher,
)

__all__ = [
    "CLOSE_UNAVAILABLE",
    "NO_CHANNEL_LAYER",
    "DirectDispatch",
    "GroupMember",
    "PubSubChannelLayer",
    "UnknownPathDenier",
    "Watcher",
    "broadcast",
    "in_worker_thread",
    "prefix_for",
    "register_consumer_loop",
    "send",
    "submit",
    "wait_idle",
]
