"""The sinks' audit lane for dead letters (streams.runtime.deadletter.AuditLane), without a broker
or a database: the consumer is a fake that records acks and pauses, the write one the test holds.

Before issue 13's flood work the lane's queue held 16 batches and `put` waited when it was full:
the one consumer of the worker (drafts, reviews and dead letters alike) then waited on the
database, and valid drafts queued behind a flood were decided only once its last audit row was
written (bench/bench_flood.py: first valid decision 0.3 s after "all audited", 5-8 s after the
last dead letter). Now `put` never waits; the dead-letter partitions pause instead.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from faust.types import TP

from schemas import DeadLetter, encode
from streams.runtime.deadletter import AuditLane
from streams.runtime.serde import EventSchema

pytestmark = pytest.mark.asyncio

DL = [TP("qa.dead-letters", p) for p in range(3)]
LIVE = 30.0  # a liveness bound, never a speed check


@dataclass
class Record:
    offset: int
    value: bytes
    topic: str = "qa.dead-letters"
    partition: int = 0


@dataclass
class Consumer:
    acked: list[tuple[TP, int]] = field(default_factory=list)
    paused: set[TP] = field(default_factory=set)
    assigned: set[TP] = field(default_factory=lambda: set(DL))

    def ack_offsets(self, tp: TP, offsets: Iterable[int]) -> None:
        self.acked.extend((tp, o) for o in offsets)

    def pause_partitions(self, tps: Iterable[TP]) -> None:
        self.paused.update(tps)

    def resume_partitions(self, tps: Iterable[TP]) -> None:
        self.paused.difference_update(tps)

    def assignment(self) -> set[TP]:
        return self.assigned


def records(tp: TP, start: int, n: int) -> list[Any]:
    def one(offset: int) -> bytes:
        return encode(DeadLetter("qa.drafts", tp.partition, offset, "BadMagicError", "x", b"!"))

    return [Record(o, one(o), partition=tp.partition) for o in range(start, start + n)]


class HeldWrite:
    """The database: each write waits until the test opens the gate."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.rows: list[DeadLetter] = []

    async def __call__(self, batch: list[DeadLetter]) -> None:
        await self.gate.wait()
        self.rows.extend(batch)


async def test_put_never_waits_on_the_database_and_pauses_the_partitions_over_the_backlog():
    write = HeldWrite()
    lane = AuditLane(
        "qa.dead-letters", EventSchema(DeadLetter), write, max_batch=10, max_backlog=30,
        linger=0.0,
    )  # fmt: skip
    consumer = Consumer()
    async with asyncio.timeout(LIVE):
        # 40 batches of 5 with the database stuck: before, the 17th put waited for ever.
        for n in range(40):
            await lane.put(consumer, DL[n % 3], records(DL[n % 3], n * 5, 5))
        assert consumer.paused == set(DL)  # every partition that brought records over 30
        assert consumer.acked == []  # nothing acknowledged before it is written
        write.gate.set()
        while lane.backlog:
            await asyncio.sleep(0.01)
    assert len(write.rows) == 200
    assert sorted(o for _, o in consumer.acked) == list(range(200))
    assert consumer.paused == set()  # resumed once the backlog was down to one statement
    await lane.close()


async def test_a_partition_revoked_while_paused_is_not_resumed():
    write = HeldWrite()
    lane = AuditLane(
        "qa.dead-letters", EventSchema(DeadLetter), write, max_batch=10, max_backlog=10,
        linger=0.0, owned=lambda tp: tp != DL[1],
    )  # fmt: skip
    consumer = Consumer()
    resumed: list[TP] = []
    consumer.resume_partitions = resumed.extend  # type: ignore[method-assign,assignment]
    async with asyncio.timeout(LIVE):
        await lane.put(consumer, DL[0], records(DL[0], 0, 10))
        await lane.put(consumer, DL[1], records(DL[1], 0, 10))
        assert consumer.paused == {DL[0], DL[1]}
        consumer.assigned = {DL[0], DL[2]}  # DL[1] went to another worker
        write.gate.set()
        while lane.backlog:
            await asyncio.sleep(0.01)
    assert resumed == [DL[0]]
    assert {tp for tp, _ in consumer.acked} == {DL[0]}  # the revoked one's next owner acks it
    await lane.close()


async def test_nothing_of_a_written_batch_stays_referenced_by_the_lane():
    # Before: the writer loop's variables kept the last batch (up to a fetch of dead letters:
    # 1,070 ConsumerRecords still alive after bench_flood's flood, a tracemalloc-free count).
    write = HeldWrite()
    write.gate.set()
    lane = AuditLane("qa.dead-letters", EventSchema(DeadLetter), write, linger=0.0)
    consumer = Consumer()
    batch = records(DL[0], 0, 50)
    alive = [weakref.ref(r) for r in batch]
    async with asyncio.timeout(LIVE):
        await lane.put(consumer, DL[0], batch)
        del batch
        while lane.backlog:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0)  # the writer is back waiting on its queue
    gc.collect()
    assert len(consumer.acked) == 50
    assert [r for r in alive if r() is not None] == []
    await lane.close()


async def test_the_worker_s_own_consumer_pauses_and_resumes_batches_keyed_by_aiokafka(tmp_path):
    # The fetched batch is keyed by aiokafka's TopicPartition; Faust's resume_partitions puts
    # what it is given in its active set as it is, and the next fetch failed an assertion (a
    # worker crashed at the end of a flood in bench/bench_flood.py): the lane hands it Faust TPs.
    from aiokafka import TopicPartition

    from streams.runtime.app import make_faust_app
    from tests.streams.stream_helpers import stream_config

    app = make_faust_app(stream_config("127.0.0.1:9", str(tmp_path)), "t-audit-lane")
    consumer: Any = app.consumer
    fetched = TopicPartition("qa.dead-letters", 0)
    consumer._active_partitions = {TP("qa.drafts", 0), TP("qa.dead-letters", 0)}
    consumer.assignment = lambda: {TP("qa.drafts", 0), TP("qa.dead-letters", 0)}
    consumer.ack_offsets = lambda tp, offsets: None
    write = HeldWrite()
    lane = AuditLane(
        "qa.dead-letters", EventSchema(DeadLetter), write, max_batch=5, max_backlog=5, linger=0.0
    )
    async with asyncio.timeout(LIVE):
        await lane.put(consumer, fetched, records(DL[0], 0, 5))
        assert consumer._get_active_partitions() == {TP("qa.drafts", 0)}
        write.gate.set()
        while lane.backlog:
            await asyncio.sleep(0.01)
    active = consumer._get_active_partitions()  # before: AssertionError (a TopicPartition in it)
    assert active == {TP("qa.drafts", 0), TP("qa.dead-letters", 0)}
    assert all(type(tp) is TP for tp in active)
    await lane.close()
