"""Reading whole topics from their beginning to their end as of now, fast (`multiqa rescore`).

One librdkafka consumer (confluent-kafka) is assigned every partition asked for, at once, and
commits nothing: librdkafka fetches in its own threads, in C, while this thread decodes what has
already arrived, so fetching and decoding overlap (with aiokafka both ran in this thread, one
after the other, and its record objects cost more than the decode of some events). Each event is
decoded exactly once, with the one codec (`schemas.decoder`: `schemas.decode` for many events of
one type; an undecodable event is reported and skipped, never guessed at). The topics'
partitions come from one metadata request that lists the cluster's topics, which cannot
auto-create a missing topic as asking for a topic by name can; where each partition ends is its
high watermark when reading began (what arrives later is not read).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    KafkaException,
    TopicPartition,
)

from schemas import CodecError, decoder
from streams.cli._command import CommandError

log = logging.getLogger(__name__)

# Big fetches: the broker sends up to this much per request (all partitions) and per partition.
_FETCH_MAX_BYTES = 64 * 1024 * 1024
_PARTITION_FETCH_BYTES = 16 * 1024 * 1024
# Events handed over per consume call, and how long one call waits for them: librdkafka fills
# the batch or waits out the timeout, so a short wait keeps the last, partial batch prompt.
_BATCH = 4096
_WAIT_S = 0.05
# How long the first metadata request may take (a broker that refuses connections fails at
# once, through librdkafka's "all brokers down").
_CONNECT_TIMEOUT_S = 30.0


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
    """`read_topics`, per partition, of the partitions `only` accepts (every one without it).

    Each consume call blocks for at most _WAIT_S, and the loop yields between them: Ctrl-C
    reaches the command as the cancellation of its task (asyncio.run), at the next yield."""
    broker_errors: list[KafkaError] = []
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        # librdkafka wants a group id; none is joined (assign, never subscribe) or committed to.
        "group.id": "multiqa-rescore",
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "isolation.level": "read_uncommitted",  # every event, as the aggregator read them
        "enable.partition.eof": True,  # the end of a compacted or transactional partition
        "fetch.max.bytes": _FETCH_MAX_BYTES,
        "max.partition.fetch.bytes": _PARTITION_FETCH_BYTES,
        "fetch.wait.max.ms": 100,
        "error_cb": broker_errors.append,
        "logger": log,
    })  # fmt: skip
    try:
        found = _partition_counts(consumer, bootstrap, wanted, broker_errors)
        tps = [
            (topic, p) for topic in wanted for p in range(found[topic]) if only is None or only(p)
        ]
        out: dict[tuple[str, int], list[Any]] = {tp: [] for tp in tps}
        if tps:
            await _drain(consumer, tps, wanted, out, on_undecodable, on_progress)
        elif on_progress is not None:
            on_progress(0, 0)
        return Partitions(out, found)
    finally:
        consumer.close()


def _partition_counts(
    consumer: Consumer,
    bootstrap: str,
    wanted: Mapping[str, type[Any]],
    broker_errors: list[KafkaError],
) -> dict[str, int]:
    """How many partitions each topic of `wanted` has (0: none such), from one request for the
    whole cluster's metadata, retried in short waits so that an unreachable broker fails fast
    (librdkafka reports it to `error_cb`, served by `poll`) instead of at the timeout."""
    deadline = time.monotonic() + _CONNECT_TIMEOUT_S
    while True:
        try:
            cluster = consumer.list_topics(timeout=0.2)
            break
        except KafkaException as exc:
            consumer.poll(0)  # nothing is assigned yet: this only serves the callbacks
            down = [e for e in broker_errors if e.code() == KafkaError._ALL_BROKERS_DOWN]
            if down or time.monotonic() >= deadline:
                # Imported only now: streams.client loads the admin client and tracing, which
                # a re-score that reaches its broker never needs.
                from streams.client import BrokerUnavailableError

                why = broker_errors[0].str() if broker_errors else str(exc.args[0])
                raise BrokerUnavailableError.at(bootstrap, RuntimeError(why)) from exc
    counts = {}
    for topic in wanted:
        meta = cluster.topics.get(topic)
        counts[topic] = len(meta.partitions) if meta is not None and meta.error is None else 0
    return counts


async def _drain(
    consumer: Consumer,
    tps: list[tuple[str, int]],
    wanted: Mapping[str, type[Any]],
    out: dict[tuple[str, int], list[Any]],
    on_undecodable: Callable[[str], None] | None,
    on_progress: Callable[[int, int], None] | None,
) -> None:
    # Where each partition begins and ends now: what is read, and the progress bar's total.
    ends: dict[tuple[str, int], int] = {}
    total = 0
    for topic, p in tps:
        low, high = _watermarks(consumer, TopicPartition(topic, p))
        if high > low:
            ends[(topic, p)] = high
            total += high - low
    read = 0
    if on_progress is not None:
        on_progress(0, total)
    if not ends:
        return
    consumer.assign([TopicPartition(t, p, OFFSET_BEGINNING) for t, p in ends])
    decoders = {topic: decoder(record_type) for topic, record_type in wanted.items()}
    sinks = {tp: (out[tp].append, decoders[tp[0]], end) for tp, end in ends.items()}
    remaining = set(ends)
    eof = KafkaError._PARTITION_EOF
    while remaining:
        # Any: the stubs make topic, partition, offset and value Optional, for the error events
        # handled first; a data event has all four (a tombstone's value None is undecodable).
        batch: list[Any] = consumer.consume(_BATCH, _WAIT_S)
        for message in batch:
            tp = (message.topic(), message.partition())
            error = message.error()
            if error is not None:
                if error.code() == eof:
                    remaining.discard(tp)  # at its end (compaction, a transaction marker)
                    continue
                raise CommandError(f"reading {tp[0]}[{tp[1]}] failed: {error.str()}")
            append, decode, end = sinks[tp]
            offset = message.offset()
            if offset >= end - 1:
                remaining.discard(tp)
                if offset >= end:
                    continue  # written after reading began
            read += 1
            try:
                append(decode(message.value()))
            except CodecError as exc:
                if on_undecodable is not None:
                    on_undecodable(f"{tp[0]}[{tp[1]}]@{offset}: {exc}")
            except TypeError:  # no value at all (a tombstone): the codec takes only bytes
                if message.value() is not None:
                    raise
                if on_undecodable is not None:
                    on_undecodable(f"{tp[0]}[{tp[1]}]@{offset}: no value (a tombstone)")
        if on_progress is not None:
            on_progress(min(read, total), total)
        await asyncio.sleep(0)  # where a cancellation (Ctrl-C) is delivered


# What a partition says while its leader is still being elected (a topic created a moment ago,
# a broker restarting): asked again shortly, it answers.
_NOT_YET = frozenset({
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
})  # fmt: skip


def _watermarks(consumer: Consumer, tp: TopicPartition) -> tuple[int, int]:
    """(first offset, end offset) of `tp` now."""
    deadline = time.monotonic() + _CONNECT_TIMEOUT_S
    while True:
        try:
            low, high = consumer.get_watermark_offsets(tp, timeout=10)
            return low, high
        except KafkaException as exc:
            error = exc.args[0]
            transient = error.retriable() or error.code() in _NOT_YET
            if not transient or time.monotonic() >= deadline:
                why = f"reading {tp.topic}[{tp.partition}] failed: {error.str()}"
                raise CommandError(why) from exc
            time.sleep(0.05)
