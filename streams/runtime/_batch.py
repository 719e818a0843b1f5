"""A fetched batch of one partition's valid events, delivered to each agent once.

Faust 0.15.3 delivers every record to every agent of its topic on its own: per record and agent a
queue hop, an event, sensors and an ack; per record a `wait_first` with two tasks. With every role
of a process on one app that was ~25 deliveries per draft, most of the worker's CPU
(bench/bench_stream.py, py-spy). So the worker's consumer (streams.runtime._fetch) turns the valid
records of a batched topic that one fetch brought for one partition into one `BatchMessage`
whose value is a `Batch` of (message, decoded value) items, and Faust delivers that message once
to each agent of the topic. Each agent handles its items (`items`), and acknowledges the batch
event once it is done with all of them (`ack`).

Offsets. The batch message carries the highest offset of its items; the consumer acknowledges
every item's offset when Faust acknowledges the batch message itself, i.e. once every agent of the
topic acknowledged it (Faust's reference count). The item offsets are never gaps to Faust's drain
loop (the consumer moves the read offset over them), so nothing of a batch is committable before
the whole batch is done by every role of the process: a crash anywhere re-delivers the whole
unfinished batch (at least once; the aggregator ignores what its table applied already, reviewer
results are de-duplicated per reviewer and draft version, the sinks' writes are idempotent).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from faust.types import TP
from faust.types.tuples import ConsumerMessage

__all__ = ["Batch", "BatchMessage", "Item", "ack", "items"]


class Batch:
    """The value of a batch event: one partition's items, in offset order."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[tuple[ConsumerMessage, Any]]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"<Batch of {len(self.items)}>"


class BatchMessage(ConsumerMessage):
    """The message Faust delivers for a batch: the last item's record (offset, key, timestamp),
    the batch as its value for every agent's schema (streams.runtime.serde), and the offsets the
    consumer acknowledges with it (`first` up to its own)."""

    __slots__ = ("batch", "first")
    batch: Batch
    first: int

    @classmethod
    def of(cls, tp: TP, record: Any, batch: Batch, first: int, generation_id: int) -> BatchMessage:
        timestamp = record.timestamp
        message = cls(
            record.topic,
            record.partition,
            record.offset,
            cast(float, None) if timestamp is None else timestamp / 1000.0,
            record.timestamp_type,
            record.headers,
            record.key,
            record.value,
            record.checksum,
            record.serialized_key_size,
            record.serialized_value_size,
            tp,
            generation_id=generation_id,
        )
        message.batch = batch
        message.first = first
        return message

    def item_offsets(self) -> Iterator[int]:
        """The offsets acknowledged with this one (its own is Faust's)."""
        for message, _ in self.batch.items:
            if message.offset != self.offset:
                yield message.offset


class Item:
    """One item of a batch event, quacking like a Faust event where our agents use one
    (`message`, `value`, `key`, `headers`); `last` marks the item whose ack acks the batch."""

    __slots__ = ("batch", "headers", "key", "last", "message", "value")

    def __init__(self, batch: Any, message: ConsumerMessage, value: Any, last: bool) -> None:
        self.batch = batch  # the Faust event of the whole batch
        self.message = message
        self.value = value
        raw = message.key
        self.key = None if raw is None else bytes(raw).decode("utf-8", "surrogateescape")
        self.headers = message.headers
        self.last = last


def items(event: Any) -> Iterator[Any]:
    """The events `event` stands for: the items of a batch event, else the event itself."""
    batch = event.value
    if type(batch) is not Batch:
        yield event
        return
    entries = batch.items
    end = len(entries) - 1
    for n, (message, value) in enumerate(entries):
        yield Item(event, message, value, n == end)


async def ack(stream: Any, event: Any) -> None:
    """Acknowledge `event` on `stream` (a manual-ack Faust stream); for an item, the batch it
    belongs to once its last item is acknowledged (items are acknowledged in order)."""
    if type(event) is Item:
        if event.last:
            await stream.ack(event.batch)
        return
    await stream.ack(event)
