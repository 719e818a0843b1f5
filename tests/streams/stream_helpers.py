"""Helpers of the stream tests: stream configs on unique topics of the real broker, readers that
collect what the stream publishes, and the process's in-memory span exporter."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemas import CodecError, decode
from streams.runtime import tracing
from streams.runtime.config import StreamConfig

_EXPORTER = InMemorySpanExporter()
_CONFIGURED: list[bool] = []


def span_exporter() -> InMemorySpanExporter:
    """The process's in-memory exporter (OpenTelemetry allows one tracer provider per process)."""
    if not _CONFIGURED:
        assert tracing.configure("multiqa-tests", exporter=_EXPORTER)
        _CONFIGURED.append(True)
    return _EXPORTER


def stream_config(bootstrap: str, tmp_dir: str, **overrides: Any) -> StreamConfig:
    """A StreamConfig on topics and consumer groups no other test uses, with the short group
    timeouts of NOTES.md (Faust's defaults make each group join take ~30 s)."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    values: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "app_prefix": prefix,
        "drafts_topic": f"{prefix}.drafts",
        "reviews_topic": f"{prefix}.reviews",
        "decisions_topic": f"{prefix}.decisions",
        "dead_letters_topic": f"{prefix}.dead-letters",
        "partitions": 1,
        "broker_session_timeout": 10.0,
        "broker_heartbeat_interval": 1.0,
        "broker_rebalance_timeout": 10.0,
        "broker_commit_interval": 0.5,
        "aggregator_tick_seconds": 0.2,
        "datadir": tmp_dir,
        # No operations endpoint: test workers run side by side (tests/streams/observe bind
        # theirs on free ports).
        "ops_port": 0,
    }
    values.update(overrides)
    return StreamConfig(**values)


async def delete_topics(config: StreamConfig) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        names = [n for n in existing if n.startswith(config.app_prefix)]
        if names:
            await admin.delete_topics(names)
    except Exception:  # best effort: the names are unique anyway
        pass
    finally:
        await admin.close()


@dataclass
class Received:
    value: Any  # the decoded record, or the CodecError
    key: bytes | None
    headers: dict[str, bytes]
    partition: int
    offset: int
    raw: bytes


class TopicReader:
    """Collects every message of a topic (all partitions, from the beginning), decoded."""

    def __init__(self, bootstrap: str, topic: str, record_type: type[Any] | None) -> None:
        self.topic = topic
        self.record_type = record_type
        self.messages: list[Received] = []
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
        )

    async def start(self) -> TopicReader:
        await self._consumer.start()
        partitions = await self._wait_partitions()
        self._consumer.assign([TopicPartition(self.topic, p) for p in partitions])
        await self._consumer.seek_to_beginning()
        return self

    async def _wait_partitions(self) -> set[int]:
        for _ in range(100):
            partitions = self._consumer.partitions_for_topic(self.topic)
            if partitions:
                return set(partitions)
            await self._consumer._client.force_metadata_update()
            await asyncio.sleep(0.1)
        raise AssertionError(f"topic {self.topic} has no partitions")

    async def stop(self) -> None:
        await self._consumer.stop()

    async def poll(self) -> None:
        batches = await self._consumer.getmany(timeout_ms=200)
        for records in batches.values():
            for record in records:
                try:
                    value: Any = decode(record.value, self.record_type)
                except CodecError as exc:
                    value = exc
                self.messages.append(
                    Received(
                        value,
                        record.key,
                        dict(record.headers),
                        record.partition,
                        record.offset,
                        record.value,
                    )
                )

    async def wait_for(
        self, predicate: Callable[[list[Any]], bool], *, timeout: float = 60.0
    ) -> list[Any]:
        """Poll until `predicate(values)` holds; returns the values. Fails after `timeout`."""
        async with asyncio.timeout(timeout):
            while True:
                values = [m.value for m in self.messages]
                if predicate(values):
                    return values
                await self.poll()

    def values(self) -> list[Any]:
        return [m.value for m in self.messages]


async def send_raw(
    bootstrap: str,
    topic: str,
    value: bytes,
    *,
    key: bytes | None = None,
    headers: list[tuple[str, bytes]] | None = None,
) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(topic, value, key=key, headers=headers)
    finally:
        await producer.stop()
