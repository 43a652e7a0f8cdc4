"""``core.live.wait_idle``: a push and every push it hands over, waited for to their end."""

from __future__ import annotations

import asyncio
import threading

from core.live import register_consumer_loop, submit, wait_idle


def test_wait_idle_waits_for_a_push_and_the_one_it_hands_over() -> None:
    released = threading.Event()
    ran: list[str] = []

    async def second() -> None:
        await asyncio.to_thread(released.wait)  # held until the test lets it go
        ran.append("second")

    async def first() -> None:
        ran.append("first")
        submit(second)  # as a board window's flush is handed over by its claim

    submit(first)
    assert not wait_idle(0.05)  # the second push is still held
    assert ran == ["first"]
    released.set()
    assert wait_idle(5)
    assert ran == ["first", "second"]


def test_pushes_left_on_a_loop_that_stopped_are_not_waited_for() -> None:
    async def never_ends() -> None:
        await asyncio.Event().wait()

    async def watched_then_stopped() -> None:
        register_consumer_loop()  # a consumer connected: pushes go to this loop
        submit(never_ends)  # handed over; the loop stops before it ends

    loop = asyncio.new_event_loop()
    loop.run_until_complete(watched_then_stopped())
    assert wait_idle(1)  # the loop is not running: what it holds will not run
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    assert wait_idle(1)
