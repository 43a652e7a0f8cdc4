"""core.live.eager_start: a coroutine runs at once; only one that must wait gets a task."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from core.live.eager_start import start_eagerly

pytestmark = pytest.mark.asyncio

LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="caller")


async def test_a_coroutine_that_never_waits_is_done_before_the_call_returns() -> None:
    done: list[str] = []

    async def send() -> None:
        done.append("sent")

    assert start_eagerly(send()) is None
    assert done == ["sent"]


async def test_a_coroutine_that_waits_goes_on_in_a_task_and_reads_the_result() -> None:
    room = asyncio.get_running_loop().create_future()
    seen: list[object] = []

    async def send() -> None:
        seen.append("started")
        seen.append(await room)
        seen.append(await asyncio.shield(asyncio.sleep(0.01, result="again")))

    task = start_eagerly(send())
    assert task is not None and seen == ["started"]
    room.set_result("room")
    await asyncio.wait_for(task, 5)
    assert seen == ["started", "room", "again"]


async def test_the_futures_exception_is_raised_inside_the_coroutine() -> None:
    failing = asyncio.get_running_loop().create_future()
    caught: list[BaseException] = []

    async def send() -> None:
        try:
            await failing
        except ConnectionResetError as error:
            caught.append(error)

    task = start_eagerly(send())
    assert task is not None
    failing.set_exception(ConnectionResetError("gone"))
    await asyncio.wait_for(task, 5)
    assert [str(error) for error in caught] == ["gone"]


async def test_cancelling_the_task_cancels_the_waiting_coroutine() -> None:
    never = asyncio.get_running_loop().create_future()
    cleaned: list[str] = []

    async def send() -> None:
        try:
            await never
        finally:
            cleaned.append("finally")

    task = start_eagerly(send())
    assert task is not None
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally"] and never.cancelled()


async def test_it_runs_in_a_copy_of_the_context_before_and_after_waiting() -> None:
    later = asyncio.get_running_loop().create_future()
    seen: list[str] = []

    async def send() -> None:
        LABEL.set("inside")
        await later
        seen.append(LABEL.get())

    task = start_eagerly(send())
    assert LABEL.get() == "caller"  # the coroutine's own set did not leak out
    later.set_result(None)
    assert task is not None
    await task
    assert seen == ["inside"]
