"""What every WebSocket consumer of the site shares.

``DirectDispatch``: Channels' ``AsyncConsumer.dispatch`` runs ``close_old_connections``
through ``sync_to_async`` before every handler, that is one hop to the process's single
thread-sensitive executor per message per consumer. A board pushed to the 2,500 watchers
of one process made 2,500 hops, one after another through that one thread, before the
last watcher's frame was written (docs/scaling.md). Our handlers touch the database only
through ``database_sync_to_async``, which closes stale connections itself, so the hop
buys nothing: dispatch calls the handler directly.
"""

from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name


class DirectDispatch:
    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
