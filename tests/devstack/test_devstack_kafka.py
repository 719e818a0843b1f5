"""The real broker through aiokafka: produce/consume, transactions, consumer-group offsets."""

from __future__ import annotations

import asyncio
import uuid

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import TopicPartition


async def _drain(consumer: AIOKafkaConsumer, tps: list[TopicPartition]) -> list:
    """Everything up to the current end of tps (high watermark / last stable offset)."""
    end = await consumer.end_offsets(tps)
    records = []
    async with asyncio.timeout(30):
        while [tp for tp in tps if await consumer.position(tp) < end[tp]]:
            batch = await consumer.getmany(*tps, timeout_ms=500)
            for msgs in batch.values():
                records.extend(msgs)
    return records


async def test_produce_and_consume_keyed_messages(kafka_bootstrap, unique_topics, create_topics):
    topic = unique_topics("roundtrip")
    await create_topics(topic, partitions=3)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    await producer.start()
    try:
        sent: dict = {}
        for i in range(12):
            key = f"draft-{i % 4}".encode()
            meta = await producer.send_and_wait(topic, f"v{i}".encode(), key=key)
            # the same key always lands on the same partition
            assert sent.setdefault(key, meta.partition) == meta.partition
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        bootstrap_servers=kafka_bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(3)]
        consumer.assign(tps)
        records = await _drain(consumer, tps)
    finally:
        await consumer.stop()
    assert sorted(r.value for r in records) == sorted(f"v{i}".encode() for i in range(12))
    for record in records:
        assert sent[record.key] == record.partition
    per_key = [r.value for r in records if r.key == b"draft-1"]
    assert per_key == [b"v1", b"v5", b"v9"]  # order is kept within a key


async def test_transactional_producer_commit_and_abort(
    kafka_bootstrap, unique_topics, create_topics
):
    topic = unique_topics("tx")
    await create_topics(topic)
    producer = AIOKafkaProducer(
        bootstrap_servers=kafka_bootstrap, transactional_id=f"multiqa-test-{uuid.uuid4()}"
    )
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send(topic, b"committed-1")
            await producer.send(topic, b"committed-2")
        await producer.begin_transaction()
        await producer.send(topic, b"aborted")
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send(topic, b"committed-3")
    finally:
        await producer.stop()

    tp = TopicPartition(topic, 0)
    seen = {}
    for isolation in ("read_committed", "read_uncommitted"):
        consumer = AIOKafkaConsumer(
            bootstrap_servers=kafka_bootstrap,
            isolation_level=isolation,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        await consumer.start()
        try:
            consumer.assign([tp])
            seen[isolation] = [r.value for r in await _drain(consumer, [tp])]
        finally:
            await consumer.stop()
    assert seen["read_committed"] == [b"committed-1", b"committed-2", b"committed-3"]
    # The aborted record really reached the log; only read_committed hides it.
    assert seen["read_uncommitted"] == [b"committed-1", b"committed-2", b"aborted", b"committed-3"]


async def test_consumer_group_offset_commit_survives_restart(
    kafka_bootstrap, unique_topics, create_topics
):
    topic = unique_topics("group")
    group = f"{topic}-group"
    await create_topics(topic)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    try:
        for i in range(6):
            await producer.send_and_wait(topic, f"m{i}".encode())
    finally:
        await producer.stop()

    tp = TopicPartition(topic, 0)

    def consumer() -> AIOKafkaConsumer:
        return AIOKafkaConsumer(
            topic,
            bootstrap_servers=kafka_bootstrap,
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=10000,
            heartbeat_interval_ms=1000,
        )

    first = consumer()
    await first.start()
    try:
        got: list = []
        async with asyncio.timeout(30):
            while len(got) < 3:
                got.append(await first.getone())
        assert [r.value for r in got] == [b"m0", b"m1", b"m2"]
        await first.commit({tp: got[-1].offset + 1})
    finally:
        await first.stop()

    second = consumer()
    await second.start()
    try:
        assert await second.committed(tp) == 3
        async with asyncio.timeout(30):
            resumed = await second.getone()
        assert resumed.value == b"m3"  # restarts after the committed offset, not from 0
    finally:
        await second.stop()
