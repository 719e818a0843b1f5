"""OrderedAcks without a broker. With one lane, as the aggregator uses it: the aggregator moves
on to the next event while changelog writes are in flight, but an event is acked only once its
writes, and every earlier event's, are delivered. By partition, as the reviewers use it: lanes
are independent, a failure anywhere stops every lane, cancelled work leaves its event and the
later ones of its lane unacked."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from faust.types import TP

from streams.runtime._acks import OrderedAcks, by_partition


class Acks:
    def __init__(self) -> None:
        self.acked: list[str] = []

    async def __call__(self, event: str) -> None:
        self.acked.append(event)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_an_event_is_acked_only_after_its_writes_and_in_order():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks)
    first, second, third = loop.create_future(), loop.create_future(), loop.create_future()
    await acker.add("e0", [first])
    await acker.add("e1", [second, third])
    await acker.add("e2", [])  # no writes (e.g. a re-delivery), but after e1
    await settle()
    assert acks.acked == []
    second.set_result(None)
    third.set_result(None)
    await settle()
    assert acks.acked == []  # e1's writes are delivered, e0's are not
    first.set_result(None)
    await settle()
    assert acks.acked == ["e0", "e1", "e2"]
    assert acker.waiting == 0 and acker.failure is None
    await acker.close()


async def test_a_failed_write_stops_acking_and_is_reported():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks)
    ok, broken, later = loop.create_future(), loop.create_future(), loop.create_future()
    await acker.add("e0", [ok])
    await acker.add("e1", [broken])
    await acker.add("e2", [later])
    ok.set_result(None)
    broken.set_exception(RuntimeError("broker refused the changelog write"))
    later.set_result(None)
    await settle()
    assert acks.acked == ["e0"]
    assert isinstance(acker.failure, RuntimeError)
    await acker.close()
    assert acks.acked == ["e0"]


async def test_the_agent_waits_when_too_many_events_wait_for_their_writes():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks, limit=2)
    writes = [loop.create_future() for _ in range(3)]
    await acker.add("e0", [writes[0]])
    adding = asyncio.ensure_future(acker.add("e1", [writes[1]]))
    await settle()
    assert not adding.done()  # two events wait: the agent is held
    writes[0].set_result(None)
    await settle()
    assert adding.done() and acks.acked == ["e0"]
    adding = asyncio.ensure_future(acker.add("e2", [writes[2]]))
    await settle()
    assert not adding.done()
    writes[1].set_result(None)
    writes[2].set_result(None)
    await settle()
    assert adding.done() and acks.acked == ["e0", "e1", "e2"]
    await acker.close()


async def test_close_leaves_pending_events_unacked():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks)
    pending = loop.create_future()
    await acker.add("e0", [pending])
    await acker.close()
    pending.set_result(None)
    await settle()
    assert acks.acked == []  # redelivered after the restart


@pytest.mark.parametrize("limit", [1, 3])
async def test_many_events_all_acked_in_order(limit):
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks, limit=limit)
    futures: list[asyncio.Future] = []

    async def deliver_later() -> None:
        while True:
            await asyncio.sleep(0)
            for fut in futures:
                if not fut.done():
                    fut.set_result(None)
                    break

    delivering = asyncio.ensure_future(deliver_later())
    for n in range(20):
        fut = loop.create_future()
        futures.append(fut)
        await acker.add(f"e{n}", [fut])
    async with asyncio.timeout(5):
        while len(acks.acked) < 20:
            await asyncio.sleep(0)
    delivering.cancel()
    assert acks.acked == [f"e{n}" for n in range(20)]
    await acker.close()


# --- by partition, as the reviewers use it ------------------------------------------------------
def partition_of(event: str) -> str:
    return event.split("@")[0]  # "p0@3": partition p0, offset 3


async def test_a_slow_event_holds_up_only_its_own_partition():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks, lane=partition_of, limit=None)
    slow, fast, other = loop.create_future(), loop.create_future(), loop.create_future()
    await acker.add("p0@0", [slow])
    await acker.add("p0@1", [fast])
    await acker.add("p1@7", [other])
    fast.set_result(None)
    other.set_result(None)
    await settle()
    assert acks.acked == ["p1@7"]  # partition 1 is not held up; p0@1 waits for p0@0
    slow.set_result(None)
    await settle()
    assert acks.acked == ["p1@7", "p0@0", "p0@1"]
    assert acker.waiting == 0
    await acker.close()


async def test_a_failure_in_one_partition_stops_acking_in_every_partition():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks, lane=partition_of, limit=None)
    broken, later = loop.create_future(), loop.create_future()
    await acker.add("p0@0", [broken])
    await acker.add("p1@0", [later])
    broken.set_exception(RuntimeError("changelog write refused"))
    await settle()
    later.set_result(None)
    await settle()
    assert acks.acked == []
    assert isinstance(acker.failure, RuntimeError)
    await acker.drained()  # returns: acking failed, nothing more will be acked
    await acker.close()


async def test_cancelled_work_leaves_its_event_and_the_later_ones_unacked():
    loop = asyncio.get_running_loop()
    acks = Acks()
    acker = OrderedAcks(acks, lane=partition_of, limit=None)
    work = asyncio.ensure_future(asyncio.Event().wait())
    done = loop.create_future()
    done.set_result(None)
    await acker.add("p0@0", [work])
    await acker.add("p0@1", [done])
    await acker.add("p1@0", [done])
    work.cancel()
    await settle()
    assert acks.acked == ["p1@0"]
    assert acker.failure is None and acker.waiting == 2
    await acker.close()


def test_a_faust_events_lane_is_its_topic_partition():
    tp = TP("qa.drafts", 3)
    event = SimpleNamespace(message=SimpleNamespace(tp=tp))
    assert by_partition(event) == tp
