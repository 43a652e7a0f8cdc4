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
leave drops the subscription. Members are consumers (``core.consumers.GroupMember``):
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

from core.broadcast import group_calls_gate

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
    ready: asyncio.Future[str]  # this process's channel in the group, once joined
    members: set[Member] = field(default_factory=set)
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
        found = self._groups.get(group)
        if found is not None:
            found.members.add(member)
            try:
                await asyncio.shield(found.ready)
            except BaseException:
                found.members.discard(member)
                raise
            return
        subscription = _Subscription(group, asyncio.get_running_loop().create_future())
        subscription.members.add(member)
        self._groups[group] = subscription
        try:
            channel = await self._subscribe(group)
        except BaseException as error:
            self._forget(subscription)
            subscription.ready.set_exception(error)
            subscription.ready.exception()  # retrieved: no "never retrieved" log if unawaited
            raise
        subscription.ready.set_result(channel)
        subscription.reader = asyncio.create_task(self._read(subscription, channel))
        if not subscription.members:  # everyone left while the subscription was made
            await self._drop(subscription)

    async def leave(self, group: str, member: Member) -> None:
        found = self._groups.get(group)
        if found is None or member not in found.members:
            return
        found.members.discard(member)
        if not found.members and found.ready.done():
            await self._drop(found)

    # --- the subscription ---

    async def _subscribe(self, group: str) -> str:
        layer = get_channel_layer()
        async with group_calls_gate():
            channel = str(await layer.new_channel())
            await layer.group_add(group, channel)
        return channel

    async def _drop(self, subscription: _Subscription) -> None:
        self._forget(subscription)
        if subscription.reader is not None:
            subscription.reader.cancel()  # the pub/sub layer unsubscribes the channel then
        if subscription.ready.exception() is None:
            try:
                async with group_calls_gate():
                    await get_channel_layer().group_discard(
                        subscription.group, subscription.ready.result()
                    )
            except Exception as error:  # the subscription ends with the process, however
                log.warning("group %s not left: %r", subscription.group, error)

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
                self._forget(subscription)
                for member in list(subscription.members):
                    member.subscription_lost(error)
                return
            for count, member in enumerate(list(subscription.members), start=1):
                member.deliver(event)
                if count % DELIVERIES_PER_TURN == 0:
                    await asyncio.sleep(0)  # let the process's requests in between


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
