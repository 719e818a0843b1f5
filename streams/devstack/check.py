"""A round trip through the running stack: one message through the broker, one row through
PostgreSQL (`multiqa dev check`, what `make demo` shows for now)."""

from __future__ import annotations

import asyncio
import time
import uuid

TOPIC = "multiqa.devstack-check"


async def kafka_round_trip(bootstrap: str, max_wait: float = 30.0) -> tuple[bytes, float]:
    """Produce one message and consume it back; returns (value, seconds)."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import TopicAlreadyExistsError
    from aiokafka.structs import TopicPartition

    started = time.monotonic()
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)])
    except TopicAlreadyExistsError:
        pass
    finally:
        await admin.close()

    payload = f"hello from multiqa {uuid.uuid4()}".encode()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        meta = await producer.send_and_wait(TOPIC, payload, key=b"check")
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partition = TopicPartition(TOPIC, meta.partition)
        consumer.assign([partition])
        consumer.seek(partition, meta.offset)
        record = await asyncio.wait_for(consumer.getone(), max_wait)
    finally:
        await consumer.stop()
    if record.value != payload:
        raise RuntimeError(f"read back {record.value!r}, expected {payload!r}")
    return record.value, time.monotonic() - started


async def postgres_round_trip(dsn: str) -> tuple[str, float]:
    """Insert one row and read it back; returns (server version, seconds)."""
    import asyncpg

    started = time.monotonic()
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS devstack_check "
            "(id uuid PRIMARY KEY, note text NOT NULL, at timestamptz NOT NULL DEFAULT now())"
        )
        row_id = uuid.uuid4()
        await conn.execute(
            "INSERT INTO devstack_check (id, note) VALUES ($1, $2)", row_id, "round trip"
        )
        note = await conn.fetchval("SELECT note FROM devstack_check WHERE id = $1", row_id)
        if note != "round trip":
            raise RuntimeError(f"read back {note!r}")
        version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    return version, time.monotonic() - started
