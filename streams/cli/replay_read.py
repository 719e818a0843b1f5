"""Reading whole topics from their beginning to their end as of now, fast (`multiqa rescore`).

One consumer with no group (nothing is committed) is assigned every partition of every topic
asked for, at once, and drains them in large fetches: one `getmany` returns whatever the broker
sent for all partitions (no per-record await, no per-partition round trip), and each event is
decoded exactly once, with the one codec (`schemas.decoder`: `schemas.decode` for many events of
one type; an undecodable event is reported and skipped, never guessed at). The topics'
partitions come from one metadata request that lists the cluster's topics, which cannot
auto-create a missing topic as asking for a topic by name can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaConnectionError

from schemas import CodecError, decoder

# Big fetches: the broker sends up to this much per request (all partitions) and per partition.
_FETCH_MAX_BYTES = 64 * 1024 * 1024
_PARTITION_FETCH_BYTES = 16 * 1024 * 1024


async def read_topics(
    bootstrap: str,
    wanted: Mapping[str, type[Any]],
    *,
    on_undecodable: Callable[[str], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_missing: Callable[[str], None] | None = None,
) -> dict[str, list[Any]]:
    """Every event of each topic in `wanted` (topic -> record type), decoded, in offset order
    per partition (partitions one after another); [] for a topic that does not exist (named to
    `on_missing`).

    `on_progress(read, total)` is called once the total to read is known (the end offsets
    when reading began), then after each fetch with the events read so far."""
    read = await read_partitions(
        bootstrap, wanted, on_undecodable=on_undecodable, on_progress=on_progress
    )
    for topic in read.missing:
        if on_missing is not None:
            on_missing(topic)
    return {
        topic: [event for (t, _), events in sorted(read.events.items()) if t == topic
                for event in events]
        for topic in wanted
    }  # fmt: skip


@dataclass
class Partitions:
    """What `read_partitions` read: the events of each (topic, partition) it was asked for, and
    how many partitions each topic has (0: it does not exist)."""

    events: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def missing(self) -> list[str]:
        return [topic for topic, n in self.counts.items() if n == 0]


async def read_partitions(
    bootstrap: str,
    wanted: Mapping[str, type[Any]],
    *,
    only: Callable[[int], bool] | None = None,
    on_undecodable: Callable[[str], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Partitions:
    """`read_topics`, per partition, of the partitions `only` accepts (every one without it)."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        fetch_max_bytes=_FETCH_MAX_BYTES,
        max_partition_fetch_bytes=_PARTITION_FETCH_BYTES,
    )
    try:
        await consumer.start()
        # One request for the whole cluster's metadata (the client's own call: a consumer's
        # public partitions_for_topic only knows topics it already asked for by name).
        cluster = await consumer._client.fetch_all_metadata()
    except KafkaConnectionError as exc:
        await consumer.stop()
        # Imported only now: streams.client loads the admin client and tracing, which a
        # re-score that reaches its broker never needs.
        from streams.client import BrokerUnavailableError

        raise BrokerUnavailableError.at(bootstrap, exc) from exc
    try:
        found = {topic: sorted(cluster.partitions_for_topic(topic) or ()) for topic in wanted}
        tps = [
            TopicPartition(topic, p)
            for topic in wanted
            for p in found[topic]
            if only is None or only(p)
        ]
        out: dict[tuple[str, int], list[Any]] = {(tp.topic, tp.partition): [] for tp in tps}
        if tps:
            consumer.assign(tps)
            for tp in tps:
                consumer.seek(tp, 0)  # explicit: seek_to_beginning races the assignment's reset
            starts = await consumer.beginning_offsets(tps)
            ends = await consumer.end_offsets(tps)
            await _drain(consumer, tps, starts, ends, wanted, out, on_undecodable, on_progress)
        return Partitions(out, {topic: len(partitions) for topic, partitions in found.items()})
    finally:
        await consumer.stop()


async def _drain(
    consumer: AIOKafkaConsumer,
    tps: list[TopicPartition],
    starts: dict[TopicPartition, int],
    ends: dict[TopicPartition, int],
    wanted: Mapping[str, type[Any]],
    out: dict[tuple[str, int], list[Any]],
    on_undecodable: Callable[[str], None] | None,
    on_progress: Callable[[int, int], None] | None,
) -> None:
    total = sum(ends[tp] - starts[tp] for tp in tps)
    read = 0
    if on_progress is not None:
        on_progress(0, total)
    remaining = {tp for tp in tps if ends[tp] > starts[tp]}
    decoders = {topic: decoder(record_type) for topic, record_type in wanted.items()}
    while remaining:
        batch = await consumer.getmany(*remaining, timeout_ms=1000)
        for tp, records in batch.items():
            end = ends[tp]
            decode = decoders[tp.topic]
            events = out[(tp.topic, tp.partition)]
            append = events.append
            for record in records:
                if record.offset >= end:
                    break
                try:
                    append(decode(record.value))
                except CodecError as exc:
                    if on_undecodable is not None:
                        on_undecodable(f"{tp.topic}[{tp.partition}]@{record.offset}: {exc}")
            read += len(records)
        # The position, not the last record: a compacted or transactional partition can end on
        # an offset no record carries.
        for tp in list(remaining):
            if await consumer.position(tp) >= ends[tp]:
                remaining.discard(tp)
        if on_progress is not None:
            on_progress(min(read, total), total)
