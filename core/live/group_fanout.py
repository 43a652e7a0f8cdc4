"""Group messages to this process's sockets: one subscription per group, fanned out here.

Channels' pattern gives every consumer a channel of its own and adds it to the group.
With channels-redis' pub/sub layer that is one Redis subscription per socket, and each
group message is copied into every member's queue, decoded once per member and woken
through that consumer's dispatch loop (a new task and an ``asyncio.wait`` per message per
socket). At 10,000 watchers of one board that per-socket work, not Redis, set the
latency (docs/scaling.md).

Here a process joins a group once, on its first local member, through a channel of its
own for that group; one reader task takes each message off that channel, decoded once,
and hands it to every local member (``Member.deliver``, a plain call). The last member's
leave drops the subscription. Members are consumers (``core.live.consumers.GroupMember``):
each keeps a bounded mailbox and sends from it in order, so a socket that stops reading
fills only its own mailbox and never delays the others.

Works with any channel layer that has groups (the pub/sub layer in production, the
in-memory one in the embedded run): it uses only ``new_channel``, ``group_add``,
``group_discard`` and ``receive``. One ``LocalGroups`` per event loop (tests run a loop
each).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field
from typing import Any, Protocol

from channels.layers import get_channel_layer

from core.live.broadcasting import group_calls_gate
from core.live.losses import count_loss

log = logging.getLogger(__name__)

# Deliveries (each usually a whole frame written) between two turns given to the rest of the
# loop: a board to 2,500 sockets of a process must not hold its HTTP requests for its
# whole length.
DELIVERIES_PER_TURN = 256


class Member(Protocol):
    def deliver(self, event: dict[str, Any]) -> None:
        """Take a group message; called on the loop, must return at once and not raise."""

    def subscription_lost(self, error: BaseException) -> None:
        """The group's channel failed (the layer's backend went away); must not raise."""


@dataclass(eq=False)
class _Subscription:
    group: str
    members: set[Member] = field(default_factory=set)
    # Joining the group: a task of its own, so that a member cancelled while it waits (its
    # client left during the handshake) does not cancel the others' subscription.
    ready: asyncio.Task[str] | None = None  # result: this process's channel in the group
    reader: asyncio.Task[None] | None = None


class LocalGroups:
    """The groups this event loop's sockets belong to, each joined once."""

    def __init__(self) -> None:
        self._groups: dict[str, _Subscription] = {}

    def member_count(self, group: str) -> int:
        found = self._groups.get(group)
        return len(found.members) if found else 0

    async def join(self, group: str, member: Member) -> None:
        """Add ``member`` to ``group``; returns once the process hears the group (raises,
        with the member left out, if the layer cannot be reached)."""
        subscription = self._groups.get(group)
        if subscription is None:
            subscription = self._groups[group] = _Subscription(group)
            subscription.ready = asyncio.create_task(self._open(subscription))
            subscription.ready.add_done_callback(_retrieve)
        subscription.members.add(member)
        assert subscription.ready is not None
        try:
            await asyncio.shield(subscription.ready)
        except BaseException:
            subscription.members.discard(member)
            raise

    async def leave(self, group: str, member: Member) -> None:
        found = self._groups.get(group)
        if found is None or member not in found.members:
            return
        found.members.discard(member)
        if not found.members and found.ready is not None and found.ready.done():
            await self._drop(found)

    # --- the subscription ---

    async def _open(self, subscription: _Subscription) -> str:
        try:
            channel = await self._subscribe(subscription.group)
        except BaseException:
            self._forget(subscription)
            raise
        subscription.reader = asyncio.create_task(self._read(subscription, channel))
        if not subscription.members:  # everyone left while the group was joined
            self._forget(subscription)
            subscription.reader.cancel()
            await self._leave_group(subscription.group, channel)
        return channel

    async def _subscribe(self, group: str) -> str:
        layer = get_channel_layer()
        async with group_calls_gate():
            channel = str(await layer.new_channel())
            await layer.group_add(group, channel)
        return channel

    async def _drop(self, subscription: _Subscription) -> None:
        """Its last member left: stop reading and leave the group (if it was joined)."""
        self._forget(subscription)
        if subscription.reader is not None:
            subscription.reader.cancel()  # the pub/sub layer unsubscribes the channel then
        ready = subscription.ready
        if ready is not None and not ready.cancelled() and ready.exception() is None:
            await self._leave_group(subscription.group, ready.result())

    async def _leave_group(self, group: str, channel: str) -> None:
        try:
            async with group_calls_gate():
                await get_channel_layer().group_discard(group, channel)
        except Exception as error:  # the subscription ends with the process, however
            count_loss("leave_failed")
            log.warning("group %s not left: %r", group, error)

    def _forget(self, subscription: _Subscription) -> None:
        if self._groups.get(subscription.group) is subscription:
            del self._groups[subscription.group]

    async def _read(self, subscription: _Subscription, channel: str) -> None:
        layer = get_channel_layer()
        while True:
            try:
                event = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("group %s: its channel failed: %r", subscription.group, error)
                count_loss("subscription_lost")
                self._forget(subscription)
                for member in list(subscription.members):
                    member.subscription_lost(error)
                return
            for count, member in enumerate(list(subscription.members), start=1):
                member.deliver(event)
                if count % DELIVERIES_PER_TURN == 0:
                    await asyncio.sleep(0)  # let the process's requests in between


def _retrieve(task: asyncio.Task[str]) -> None:
    """A failed join that no member waits on any more logs nothing ("never retrieved"):
    the members that waited have raised it already."""
    if not task.cancelled():
        task.exception()


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LocalGroups] = (
    weakref.WeakKeyDictionary()
)


def local_groups() -> LocalGroups:
    """This event loop's groups."""
    loop = asyncio.get_running_loop()
    found = _by_loop.get(loop)
    if found is None:
        found = _by_loop[loop] = LocalGroups()
    return found
