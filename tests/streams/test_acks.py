"""OrderedAcks by partition, as the reviewers use it: lanes are independent, a failure anywhere
stops every lane, cancelled work leaves its event and the later ones of its lane unacked."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from faust.types import TP

from streams.runtime._acks import OrderedAcks, by_partition


@dataclass
class Message:
    tp: TP
    offset: int


@dataclass
class Event:
    message: Message


def event(partition: int, offset: int) -> Event:
    return Event(Message(TP("t", partition), offset))


class Acked(list[tuple[int, int]]):
    async def __call__(self, event: Event) -> None:
        self.append((event.message.tp.partition, event.message.offset))


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_slow_event_holds_up_only_its_own_partition():
    loop = asyncio.get_running_loop()
    acked = Acked()
    acks = OrderedAcks(acked, lane=by_partition, limit=None)
    slow, fast, other = loop.create_future(), loop.create_future(), loop.create_future()
    await acks.add(event(0, 0), [slow])
    await acks.add(event(0, 1), [fast])
    await acks.add(event(1, 7), [other])
    fast.set_result(None)
    other.set_result(None)
    await settle()
    assert acked == [(1, 7)]  # partition 1 is not held up; (0, 1) waits for (0, 0)
    slow.set_result(None)
    await settle()
    assert acked == [(1, 7), (0, 0), (0, 1)]
    assert acks.waiting == 0
    await acks.close()


async def test_a_failure_in_one_partition_stops_acking_in_every_partition():
    loop = asyncio.get_running_loop()
    acked = Acked()
    acks = OrderedAcks(acked, lane=by_partition, limit=None)
    broken, later = loop.create_future(), loop.create_future()
    await acks.add(event(0, 0), [broken])
    await acks.add(event(1, 0), [later])
    broken.set_exception(RuntimeError("changelog write refused"))
    await settle()
    later.set_result(None)
    await settle()
    assert acked == []
    assert isinstance(acks.failure, RuntimeError)
    await acks.drained()  # returns: acking failed, nothing more will be acked
    await acks.close()


async def test_cancelled_work_leaves_its_event_and_the_later_ones_unacked():
    loop = asyncio.get_running_loop()
    acked = Acked()
    acks = OrderedAcks(acked, lane=by_partition, limit=None)
    work = asyncio.ensure_future(asyncio.Event().wait())
    done = loop.create_future()
    done.set_result(None)
    await acks.add(event(0, 0), [work])
    await acks.add(event(0, 1), [done])
    await acks.add(event(1, 0), [done])
    work.cancel()
    await settle()
    assert acked == [(1, 0)]
    assert acks.failure is None and acks.waiting == 2
    await acks.close()
