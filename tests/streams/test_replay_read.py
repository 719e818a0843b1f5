"""The bulk reader of `multiqa rescore` (streams.cli.replay_read, librdkafka), on the real broker:
it reads to where each partition ended when reading began, names every bad event by partition
and offset without stopping, and keeps librdkafka's own log lines off the operator's stderr."""

from __future__ import annotations

import pytest
from aiokafka import AIOKafkaProducer
from confluent_kafka import Producer

from bench.rescore_history import make_history
from schemas import QADecision, encode
from streams.cli.replay_read import read_partitions, read_topics

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(120)]


async def _send(bootstrap: str, topic: str, values: list[bytes | None]) -> None:
    # Compressed: the 2 MiB value is a repeating pattern, under the broker's 1 MB limit so.
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, max_request_size=8 * 1024 * 1024, compression_type="gzip"
    )
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value, key=b"k", partition=0)
    finally:
        await producer.stop()


async def test_events_written_after_reading_began_are_not_read(
    kafka_bootstrap, unique_topics, create_topics
) -> None:
    """The end is each partition's end when the reading began: a decision written once the
    totals are known (the first progress call) is not part of this re-score."""
    (topic,) = await create_topics(unique_topics("qa.decisions"), partitions=1)
    decisions = (await make_history(40)).decisions
    await _send(kafka_bootstrap, topic, [encode(d) for d in decisions[:30]])
    totals: list[int] = []

    def write_more(read: int, total: int) -> None:
        if not totals:  # once: before the first event is fetched
            late = Producer({"bootstrap.servers": kafka_bootstrap})
            for decision in decisions[30:]:
                late.produce(topic, encode(decision), key=b"k", partition=0)
            assert late.flush(30) == 0
        totals.append(total)

    read = await read_partitions(kafka_bootstrap, {topic: QADecision}, on_progress=write_more)
    got = read.events[(topic, 0)]
    assert [d.decision_id for d in got] == [d.decision_id for d in decisions[:30]]
    assert totals[0] == 30 and totals[-1] == 30
    # The next reading sees them.
    again = await read_topics(kafka_bootstrap, {topic: QADecision})
    assert len(again[topic]) == len(decisions)


async def test_bad_values_are_named_by_offset_and_the_rest_read(
    kafka_bootstrap, unique_topics, create_topics, capsys
) -> None:
    """A tombstone (no value), an empty value, NULs, 2 MiB of binary, a lone surrogate's bytes
    and a deeply nested JSON text between good decisions: each skipped and named with its
    offset, the good ones decoded in order, no traceback and no librdkafka line on stderr."""
    (topic,) = await create_topics(unique_topics("qa.decisions"), partitions=1)
    good = [encode(d) for d in (await make_history(3)).decisions]
    bad: list[bytes | None] = [
        None,
        b"",
        b"\x00" * 64,
        bytes(range(256)) * 8192,  # 2 MiB
        "\ud800".encode("utf-8", "surrogatepass"),
        b"[" * 100_000 + b"]" * 100_000,
        b" \t\n ",
    ]
    values: list[bytes | None] = [good[0], *bad, *good[1:]]
    await _send(kafka_bootstrap, topic, values)
    named: list[str] = []
    events = await read_topics(kafka_bootstrap, {topic: QADecision}, on_undecodable=named.append)
    assert [encode(d) for d in events[topic]] == good
    assert [line.split(":", 1)[0] for line in named] == [
        f"{topic}[0]@{offset}" for offset in range(1, 1 + len(bad))
    ]
    assert "tombstone" in named[0]
    err = capsys.readouterr().err
    assert "Traceback" not in err and "rdkafka" not in err.lower()


async def test_an_empty_partition_beside_a_full_one_ends_the_read(
    kafka_bootstrap, unique_topics, create_topics
) -> None:
    """Partitions with nothing in them are not waited for (nothing will ever arrive there)."""
    (topic,) = await create_topics(unique_topics("qa.decisions"), partitions=3)
    decisions = (await make_history(5)).decisions
    await _send(kafka_bootstrap, topic, [encode(d) for d in decisions])
    progress: list[tuple[int, int]] = []
    read = await read_partitions(
        kafka_bootstrap, {topic: QADecision}, on_progress=lambda *a: progress.append(a)
    )
    assert read.counts == {topic: 3}
    assert [len(read.events[(topic, p)]) for p in range(3)] == [len(decisions), 0, 0]
    assert progress[0] == (0, len(decisions)) and progress[-1] == (len(decisions),) * 2


async def test_a_partition_ending_on_a_transaction_marker_is_read_to_its_end(
    kafka_bootstrap, unique_topics, create_topics
) -> None:
    """Events written in a committed transaction: the partition's last offset is the commit
    marker, which no event carries; the reading ends there (librdkafka's end-of-partition
    event), with every event, instead of waiting for an offset that never comes."""
    (topic,) = await create_topics(unique_topics("qa.decisions"), partitions=1)
    decisions = (await make_history(6)).decisions
    producer = AIOKafkaProducer(
        bootstrap_servers=kafka_bootstrap, transactional_id=f"tx-{topic}", enable_idempotence=True
    )
    await producer.start()
    try:
        async with producer.transaction():
            for decision in decisions:
                await producer.send(topic, encode(decision), key=b"k", partition=0)
    finally:
        await producer.stop()
    read = await read_partitions(kafka_bootstrap, {topic: QADecision})
    assert [d.decision_id for d in read.events[(topic, 0)]] == [d.decision_id for d in decisions]
