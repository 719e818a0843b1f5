"""ConcurrentHandlers without a broker: handlers run concurrently, acks follow offset order."""

# FakeStream and FakeEvent stand in for Faust's StreamT and EventT by duck typing (the two
# attributes ConcurrentHandlers reads); mypy would want the whole Faust interfaces.
# mypy: disable-error-code="arg-type"

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from faust.types import TP

from streams.runtime.reviewer_agents import ConcurrentHandlers, DecidedVersions


@dataclass
class FakeMessage:
    tp: TP
    offset: int
    topic: str = "qa.drafts"

    @property
    def partition(self) -> int:
        return self.tp.partition


@dataclass
class FakeEvent:
    message: FakeMessage


@dataclass
class FakeStream:
    acked: list[tuple[int, int]] = field(default_factory=list)

    async def ack(self, event: FakeEvent) -> bool:
        self.acked.append((event.message.tp.partition, event.message.offset))
        return True


def events(partition: int, *offsets: int) -> list[FakeEvent]:
    return [FakeEvent(FakeMessage(TP("qa.drafts", partition), o)) for o in offsets]


async def test_acks_wait_for_the_slowest_earlier_event_of_their_partition():
    stream = FakeStream()
    runner = ConcurrentHandlers(stream, limit=8, name="test")
    gates = {o: asyncio.Event() for o in range(4)}
    finished: list[int] = []

    async def handler(event: FakeEvent) -> None:
        await gates[event.message.offset].wait()
        finished.append(event.message.offset)

    for event in events(0, 0, 1, 2, 3):
        await runner.submit(event, handler)
    for offset in (3, 1, 2):  # everything but the first finishes first
        gates[offset].set()
        while offset not in finished:
            await asyncio.sleep(0)
    assert finished == [3, 1, 2]
    assert stream.acked == []  # offset 0 is still being handled
    gates[0].set()
    while len(stream.acked) < 4:
        await asyncio.sleep(0)
    assert stream.acked == [(0, 0), (0, 1), (0, 2), (0, 3)]


async def test_partitions_are_independent_and_concurrency_is_bounded():
    stream = FakeStream()
    runner = ConcurrentHandlers(stream, limit=2, name="test")
    release = asyncio.Event()
    running = 0
    peak = 0

    async def handler(event: FakeEvent) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if event.message.tp.partition == 0:
            await release.wait()
        running -= 1

    await runner.submit(events(0, 10)[0], handler)  # holds a slot until released
    for event in events(1, 5, 6, 7):  # one slot left: these run one after another
        await runner.submit(event, handler)
    while len(stream.acked) < 3:
        await asyncio.sleep(0)
    assert stream.acked == [(1, 5), (1, 6), (1, 7)]  # not held up by partition 0
    assert peak == 2
    release.set()
    while len(stream.acked) < 4:
        await asyncio.sleep(0)
    assert stream.acked[-1] == (0, 10)


async def test_a_failing_handler_is_acked_and_does_not_block_later_events():
    stream = FakeStream()
    runner = ConcurrentHandlers(stream, limit=4, name="test")

    async def handler(event: FakeEvent) -> None:
        if event.message.offset == 1:
            raise RuntimeError("bug")

    for event in events(0, 0, 1, 2):
        await runner.submit(event, handler)
    while len(stream.acked) < 3:
        await asyncio.sleep(0)
    assert stream.acked == [(0, 0), (0, 1), (0, 2)]


async def test_close_cancels_in_flight_handlers_without_acking_them():
    stream = FakeStream()
    runner = ConcurrentHandlers(stream, limit=4, name="test")
    cancelled = []

    async def handler(event: FakeEvent) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(event.message.offset)
            raise

    for event in events(0, 0, 1):
        await runner.submit(event, handler)
    await asyncio.sleep(0)
    await runner.close()
    assert sorted(cancelled) == [0, 1]
    assert stream.acked == []
    assert runner.in_flight == 0


async def test_decided_versions_cancel_tracked_reviews_and_forget_the_oldest():
    decided = DecidedVersions(capacity=2)
    task = asyncio.ensure_future(asyncio.Event().wait())
    decided.track(("d", 1), task)
    assert decided.add(("d", 1)) == 1
    await asyncio.sleep(0)
    assert task.cancelled()
    decided.add(("e", 1))
    decided.add(("f", 1))
    assert ("d", 1) not in decided and ("e", 1) in decided and ("f", 1) in decided


async def test_a_batchs_drafts_are_reviewed_concurrently_within_the_slots_in_few_tasks():
    from typing import Any

    from streams.runtime.reviewer_agents import ReviewerAgent

    agent: Any = ReviewerAgent.__new__(ReviewerAgent)
    agent.concurrency = 3
    agent._slots = asyncio.Semaphore(3)
    slow = asyncio.get_running_loop().create_future()
    running: list[int] = []
    most = 0
    done: list[int] = []

    async def review_and_send(draft: int) -> Any:
        nonlocal most
        running.append(draft)
        most = max(most, len(running))
        if draft == 0:
            await slow  # a slow first draft holds one slot, not the batch
        else:
            await asyncio.sleep(0)
        running.remove(draft)
        done.append(draft)
        return None if draft == 5 else (f"result {draft}", [], None)  # 5: a bad draft

    agent._review_and_send = review_and_send
    reviewing = asyncio.ensure_future(agent._review_all(list(range(10))))
    for _ in range(50):
        await asyncio.sleep(0)
    assert sorted(done) == list(range(1, 10)) and not reviewing.done()
    slow.set_result(None)
    sent = await reviewing
    assert most == 3
    assert sent == [None if n == 5 else (f"result {n}", [], None) for n in range(10)]
