"""The worker's consumer does not acknowledge a message fetched in an earlier consumer generation
(streams.runtime._fetch.ScreeningConsumer.ack): Faust's stream acknowledges the events it skips
after a rebalance although no agent handled them, and with several agents on one batch message
that skip released offsets the slow agent never reviewed. Such a message is read again after the
assignment's seek and acknowledged in its new generation."""

from __future__ import annotations

from typing import Any

from aiokafka.structs import ConsumerRecord
from faust.types import TP
from faust.types.tuples import ConsumerMessage, Message

from streams.runtime._batch import Batch, BatchMessage
from streams.runtime._fetch import ScreeningConsumer
from streams.runtime.app import make_faust_app
from tests.streams.stream_helpers import stream_config

TOPIC = "t-stale.drafts"


def record(offset: int) -> ConsumerRecord:
    return ConsumerRecord(TOPIC, 0, offset, 0, 0, b"k", b"v", None, 1, 1, ())


def batch_message(tp: TP, offsets: range, generation: int) -> BatchMessage:
    items: list[tuple[ConsumerMessage, Any]] = [
        (
            ConsumerMessage(
                TOPIC, 0, o, 0.0, 0, [], b"k", b"v", None, tp=tp, generation_id=generation
            ),
            None,
        )
        for o in offsets
    ]
    return BatchMessage.of(tp, record(offsets[-1]), Batch(items), offsets[0], generation)


def consumer_of(tmp_path) -> ScreeningConsumer:
    app = make_faust_app(stream_config("127.0.0.1:9", str(tmp_path)), "t-stale")
    app.topics.acking_topics.add(TOPIC)
    consumer = app.consumer
    assert isinstance(consumer, ScreeningConsumer)
    return consumer


async def test_a_batch_of_an_earlier_generation_is_not_acknowledged(tmp_path):
    consumer = consumer_of(tmp_path)
    tp = TP(TOPIC, 0)
    consumer.app.consumer_generation_id = 3
    stale = batch_message(tp, range(10, 17), generation=2)
    assert consumer.ack(stale) is False
    assert list(consumer._acked[tp]) == []
    assert consumer._new_offset(tp) is None  # nothing becomes committable


async def test_the_same_offsets_read_again_in_the_current_generation_are_acknowledged(tmp_path):
    consumer = consumer_of(tmp_path)
    tp = TP(TOPIC, 0)
    consumer.app.consumer_generation_id = 3
    assert consumer.ack(batch_message(tp, range(10, 17), generation=2)) is False
    assert consumer.ack(batch_message(tp, range(10, 17), generation=3)) is True
    assert sorted(consumer._acked[tp]) == list(range(10, 17))


async def test_a_message_without_a_generation_is_acknowledged_as_faust_does(tmp_path):
    consumer = consumer_of(tmp_path)
    tp = TP(TOPIC, 0)
    consumer.app.consumer_generation_id = 3
    plain = Message(TOPIC, 0, 5, 0.0, 0, [], b"k", b"v", None, tp=tp)
    assert consumer.ack(plain) is True
    assert list(consumer._acked[tp]) == [5]
