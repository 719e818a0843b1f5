"""faust-streaming against the real broker: one agent consumes a topic, counts per key in a
changelog-backed table, and sends to another topic."""

from __future__ import annotations

import asyncio
import json
import uuid

import faust
from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition


async def _read_all(bootstrap: str, topic: str, count: int) -> list:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        consumer.assign([TopicPartition(topic, 0)])
        records: list = []
        async with asyncio.timeout(60):
            while len(records) < count:
                batch = await consumer.getmany(timeout_ms=500)
                for msgs in batch.values():
                    records.extend(msgs)
        return records
    finally:
        await consumer.stop()


async def test_faust_agent_table_round_trip(
    kafka_bootstrap, unique_topics, create_topics, tmp_path
):
    source_name, sink_name = unique_topics("in"), unique_topics("out")
    await create_topics(source_name, sink_name)
    app_id = f"multiqa-test-{uuid.uuid4().hex[:8]}"
    app = faust.App(
        app_id,
        broker=f"kafka://{kafka_bootstrap}",
        store="memory://",
        datadir=str(tmp_path),
        web_enabled=False,
        topic_partitions=1,
        topic_replication_factor=1,
        consumer_auto_offset_reset="earliest",
        # Faust's defaults (60 s session/rebalance) make every group join take ~30 s.
        broker_session_timeout=10,
        broker_rebalance_timeout=10,
        broker_heartbeat_interval=1,
    )
    source = app.topic(source_name, partitions=1, key_type=str, value_type=str)
    sink = app.topic(sink_name, partitions=1, key_type=str, value_type=str)
    counts = app.Table("counts", default=int, partitions=1)

    @app.agent(source)
    async def count(stream):
        async for key, value in stream.items():
            counts[key] += 1
            await sink.send(key=key, value=f"{value}:{counts[key]}")

    await app.start()
    try:
        for key, value in (("a", "x"), ("b", "y"), ("a", "z")):
            await source.send(key=key, value=value)
        out = await _read_all(kafka_bootstrap, sink_name, 3)
        # str keys are sent raw, values as JSON
        assert [(r.key.decode(), json.loads(r.value)) for r in out] == [
            ("a", "x:1"),
            ("b", "y:1"),
            ("a", "z:2"),
        ]
        assert counts["a"] == 2 and counts["b"] == 1
    finally:
        await app.stop()

    # The table is backed by a changelog topic on the broker: its last value per key is the state
    # a restarted worker would recover.
    changelog = await _read_all(kafka_bootstrap, f"{app_id}-counts-changelog", 3)
    latest = {json.loads(r.key): json.loads(r.value) for r in changelog}
    assert latest == {"a": 2, "b": 1}
