"""streams.runtime.serde: Faust agents receive typed records, headers pass through untouched, and a
bad message reaches the agent as an Undecodable it can dead-letter (never an exception in Faust)."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import faust
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import TopicPartition
from faust.exceptions import ValueDecodeError
from faust.types.tuples import Message

from schemas import (
    BadMagicError,
    Cost,
    DeadLetter,
    DraftSubmitted,
    Finding,
    InvalidRecordError,
    Provider,
    ReviewerResult,
    Severity,
    TruncatedError,
    WrongRecordTypeError,
    decode,
    encode,
)
from streams.runtime.serde import CODEC_NAME, MAX_DEAD_LETTER_RAW, EventSchema, Undecodable

AT = datetime(2026, 5, 17, 9, 30, 12, 345000, tzinfo=UTC)
RESULT = ReviewerResult(
    "critic",
    True,
    82.5,
    "Solid structure.",
    Provider.OLLAMA,
    findings=(Finding("unsourced_statistic", Severity.WARNING, "needs a source"),),
    cost=Cost(tokens_in=1850, tokens_out=240, duration_ms=8400, model="gemma3"),
    draft_id="draft-42",
    version=3,
    produced_at=AT,
)
HEADERS = [
    ("traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    ("tracestate", b"multiqa=1"),
    ("x-binary", b"\x00\xff\xfe"),
    ("x-binary", b"duplicate key, kept"),
]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[faust.App]:
    yield faust.App(
        f"serde-{uuid.uuid4().hex[:8]}",
        broker="kafka://127.0.0.1:9",
        datadir=str(tmp_path),
        web_enabled=False,
    )


def message(value: bytes | None, key: bytes | None = b"draft-42", offset: int = 7) -> Message:
    return Message("qa.reviews", 2, offset, 0.0, 0, list(HEADERS), key, value, None)


async def test_send_side_encodes_with_the_codec_and_leaves_headers_alone(app: faust.App) -> None:
    topic: Any = app.topic("qa.reviews", schema=EventSchema(ReviewerResult))
    headers = list(HEADERS)
    value, value_headers = topic.prepare_value(RESULT, None, headers=headers)
    key, key_headers = topic.prepare_key("draft-42", None, headers=value_headers)
    assert value == encode(RESULT)
    assert key == b"draft-42"
    assert key_headers is headers and headers == HEADERS


async def test_receive_side_gives_typed_records_and_the_headers_as_sent(app: faust.App) -> None:
    topic: Any = app.topic("qa.reviews", schema=EventSchema(ReviewerResult))
    msg = message(encode(RESULT))
    event = await topic.schema.decode(app, msg, propagate=True)
    assert event.key == "draft-42"
    assert type(event.value) is ReviewerResult and event.value == RESULT
    assert event.message.headers == HEADERS  # untouched, duplicates and binary values included


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (b'{"reviewer": "critic"}', BadMagicError),
        (None, TruncatedError),  # a tombstone
        (encode(RESULT)[:-3], TruncatedError),
        (
            encode(DraftSubmitted("draft-42", 3, "t", "c", submitted_at=AT)),
            WrongRecordTypeError,
        ),
    ],
)
async def test_a_bad_message_arrives_as_undecodable_and_becomes_a_dead_letter(
    app: faust.App, value: bytes | None, error: type[Exception]
) -> None:
    topic: Any = app.topic("qa.reviews", schema=EventSchema(ReviewerResult))
    msg = message(value)
    event = await topic.schema.decode(app, msg, propagate=True)
    assert isinstance(event.value, Undecodable)
    assert type(event.value.error) is error
    letter = event.value.dead_letter(msg, "aggregator")
    assert (letter.source_topic, letter.source_partition, letter.source_offset) == (
        "qa.reviews",
        2,
        7,
    )
    assert letter.error_type == error.__name__
    assert letter.raw == (value or b"") and letter.key == b"draft-42"
    assert letter.consumer == "aggregator"
    assert decode(encode(letter), DeadLetter) == letter  # always publishable


async def test_an_oversize_message_dead_letters_with_its_raw_bytes_cut(app: faust.App) -> None:
    topic: Any = app.topic("qa.drafts", schema=EventSchema(DraftSubmitted))
    huge = b"\xc3\x01" + bytes(5 * 1024 * 1024)
    event = await topic.schema.decode(app, message(huge), propagate=True)
    letter = event.value.dead_letter(event.message, "validator")
    assert letter.error_type == "OversizeError"
    assert len(letter.raw) == MAX_DEAD_LETTER_RAW
    assert f"of {len(huge)} bytes" in letter.error
    assert decode(encode(letter), DeadLetter) == letter


async def test_an_invalid_record_is_never_sent(app: faust.App) -> None:
    topic: Any = app.topic("qa.reviews", schema=EventSchema(ReviewerResult))
    with pytest.raises(InvalidRecordError, match="0-100"):
        topic.prepare_value(dataclasses.replace(RESULT, score=120.0), None, headers=[])


async def test_keys_that_are_not_utf8_survive_a_round_trip(app: faust.App) -> None:
    topic: Any = app.topic("qa.reviews", schema=EventSchema(ReviewerResult))
    event = await topic.schema.decode(app, message(encode(RESULT), key=b"\xff\xfeid"))
    key, _ = topic.prepare_key(event.key, None, headers=[])
    assert key == b"\xff\xfeid"


async def test_the_named_faust_serializer(app: faust.App) -> None:
    data = app.serializers.dumps_value(None, RESULT, serializer=CODEC_NAME)
    assert data == encode(RESULT)
    assert app.serializers.loads_value(None, data, serializer=CODEC_NAME) == RESULT
    with pytest.raises(ValueDecodeError) as caught:
        app.serializers.loads_value(None, b"junk", serializer=CODEC_NAME)
    assert isinstance(caught.value.__cause__, BadMagicError)


# --- against the real broker ------------------------------------------------------------------


async def _read(bootstrap: str, topic: str, count: int) -> list[Any]:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        consumer.assign([TopicPartition(topic, 0)])
        found: list[Any] = []
        async with asyncio.timeout(60):
            while len(found) < count:
                for batch in (await consumer.getmany(timeout_ms=500)).values():
                    found.extend(batch)
        return found
    finally:
        await consumer.stop()


async def test_an_agent_on_the_real_broker(
    kafka_bootstrap: str, unique_topics: Any, create_topics: Any, tmp_path: Path
) -> None:
    """Typed records in, the same bytes and headers out, bad messages to the dead letters."""
    source, sink, dead = unique_topics("reviews"), unique_topics("out"), unique_topics("dead")
    await create_topics(source, sink, dead)
    app = faust.App(
        f"serde-{uuid.uuid4().hex[:8]}",
        broker=f"kafka://{kafka_bootstrap}",
        store="memory://",
        datadir=str(tmp_path),
        web_enabled=False,
        topic_partitions=1,
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=10,
        broker_rebalance_timeout=10,
        broker_heartbeat_interval=1,
    )
    reviews = app.topic(source, partitions=1, schema=EventSchema(ReviewerResult))
    out = app.topic(sink, partitions=1, schema=EventSchema(ReviewerResult))
    dead_letters = app.topic(dead, partitions=1, schema=EventSchema(DeadLetter))
    seen: list[Any] = []

    @app.agent(reviews)
    async def forward(stream: Any) -> None:
        async for event in stream.events():
            if isinstance(event.value, Undecodable):
                await dead_letters.send(
                    key=event.key, value=event.value.dead_letter(event.message, "forward")
                )
                continue
            seen.append(event.value)
            await out.send(key=event.key, value=event.value, headers=event.message.headers)

    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    await app.start()
    try:
        await producer.send_and_wait(source, encode(RESULT), key=b"draft-42", headers=HEADERS)
        await producer.send_and_wait(source, b"not avro", key=b"draft-43")
        forwarded = (await _read(kafka_bootstrap, sink, 1))[0]
        letter = (await _read(kafka_bootstrap, dead, 1))[0]
    finally:
        await producer.stop()
        await app.stop()
    assert seen == [RESULT]
    assert forwarded.value == encode(RESULT)
    assert list(forwarded.headers) == HEADERS
    dead_letter = decode(letter.value, DeadLetter)
    assert dead_letter.source_topic == source and dead_letter.source_offset == 1
    assert dead_letter.error_type == "BadMagicError"
    assert dead_letter.raw == b"not avro" and dead_letter.key == b"draft-43"
