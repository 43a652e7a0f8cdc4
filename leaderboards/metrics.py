"""The live leaderboards' metrics (docs/metrics.md): open WebSockets and boards pushed."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from core.metrics import PREFIX

# Summed over the server processes still running (prometheus-client's "livesum"): a
# process that died takes its sockets with it.
WEBSOCKETS_OPEN = Gauge(
    f"{PREFIX}_websockets_open",
    "WebSockets watching a challenge's live board, open now.",
    multiprocess_mode="livesum",
)
WEBSOCKETS_OPENED = Counter(
    f"{PREFIX}_websockets_opened",
    "WebSockets accepted on a challenge's live board since the start.",
)
BOARDS_PUSHED = Counter(
    f"{PREFIX}_boards_pushed",
    "Boards sent to a challenge's watchers (one per coalescing window per challenge, "
    "computed once for all its watchers; a void's board too).",
)
