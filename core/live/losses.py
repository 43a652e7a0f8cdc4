"""What the live fan-out drops or fails, counted (``astrocyte_live_losses_total{where}``).

The fan-out (this package, ``core.live``, and ``leaderboards.live``) hands work between
threads and event loops and never raises: a player's action is safe in the database
whatever happens to its push, and a newer board follows a lost one. So that a bug or an
outage there is seen as more than a warning line, every place that drops or fails a push
counts it here, by where:

- ``schedule``: a push could not be handed to the broadcasting loop;
- ``push``: a push failed while it was made (reading the board, a window's claim);
- ``send``: the channel layer refused or timed out a group message (Redis down or slow);
- ``channel_overflow``: a process's subscription queue was full, its oldest message dropped;
- ``mailbox_overflow``: a socket that does not read fast enough lost its oldest message;
- ``subscription_lost``: a group's channel failed; its sockets were closed 4503;
- ``socket_failed``: a message failed on one socket, which was closed 1011;
- ``leave_failed``: a group could not be left (the subscription ends with the process).
"""

from __future__ import annotations

from prometheus_client import Counter

from core.metrics import PREFIX

WHERE = (
    "schedule",
    "push",
    "send",
    "channel_overflow",
    "mailbox_overflow",
    "subscription_lost",
    "socket_failed",
    "leave_failed",
)

LIVE_LOSSES = Counter(
    f"{PREFIX}_live_losses",
    "Live pushes dropped or failed on their way to the sockets, by where (core/live/losses.py).",
    ["where"],
)
for _where in WHERE:
    LIVE_LOSSES.labels(_where)  # every series exists from the start, at 0


def count_loss(where: str, count: int = 1) -> None:
    if where not in WHERE:
        raise ValueError(f"unknown live loss {where!r}")
    LIVE_LOSSES.labels(where).inc(count)


def losses(where: str) -> float:
    """This process's count so far (tests, benches)."""
    return float(LIVE_LOSSES.labels(where)._value.get())
