"""The aggregator's write-behind table cache without a broker: each key changed between two
flushes is written once, input offsets after every entry, and a flush acknowledges its events only
once every one of its writes is delivered, and publishes its decisions only after that."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from streams.runtime._acks import OrderedAcks
from streams.runtime._aggregator_flush import Batch
from streams.runtime._cache import TableCache
from streams.runtime.aggregator import Aggregator


class MemoryStore:
    """What TableCache reads and writes of Faust's memory store."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self._key_partition: dict[str, int] = {}


class Changelog:
    """A table whose changelog writes are futures the test delivers."""

    def __init__(self) -> None:
        self.data = MemoryStore()
        self.sent: list[tuple[int, str, Any]] = []
        self.futures: list[asyncio.Future[None]] = []

    async def write_changelog(self, partition: int, key: str, value: Any) -> Any:
        self.sent.append((partition, key, value))
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.futures.append(fut)
        return fut


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_each_key_is_written_once_per_flush_offsets_last_and_reads_see_pending_changes():
    table = Changelog()
    cache = TableCache(table)
    cache.set("__offsets__:qa.drafts:1", 1, {"next": 4}, last=True)
    cache.set("d:1", 1, {"results": 1})
    cache.set("d:1", 1, {"results": 2})
    cache.set("e:1", 2, {"results": 1})
    cache.set("__offsets__:qa.drafts:1", 1, {"next": 5}, last=True)
    assert cache.get("d:1") == {"results": 2}  # pending, not in the store yet
    assert table.data.data == {} and len(cache) == 3
    assert await cache.flush() == table.futures
    assert table.sent == [
        (1, "d:1", {"results": 2}),
        (2, "e:1", {"results": 1}),
        (1, "__offsets__:qa.drafts:1", {"next": 5}),
    ]
    assert table.data.data["d:1"] == {"results": 2}
    assert table.data._key_partition == {"d:1": 1, "e:1": 2, "__offsets__:qa.drafts:1": 1}
    assert await cache.flush() == [] and len(cache) == 0  # nothing changed since
    cache.delete("d:1", 1)
    assert cache.get("d:1") is None
    assert dict(cache.items()) == {"e:1": {"results": 1}, "__offsets__:qa.drafts:1": {"next": 5}}
    await cache.flush()
    assert table.sent[-1] == (1, "d:1", None) and "d:1" not in table.data.data
    cache.set("e:1", 2, {"results": 9})
    cache.discard()  # an agent that crashed: its unflushed changes are dropped
    assert cache.get("e:1") == {"results": 1} and len(cache) == 0


async def test_a_flush_acks_its_events_after_all_its_writes_then_publishes():
    table = Changelog()
    aggregator: Any = Aggregator.__new__(Aggregator)
    aggregator.cache = TableCache(table)
    aggregator._batch = Batch()
    aggregator._room = asyncio.Event()
    published: list[list[tuple[str, int]]] = []

    async def publish(queued: list[tuple[str, int]]) -> None:
        published.append(list(queued))

    aggregator._publish = publish
    acked: list[str] = []

    async def ack(event: str) -> None:
        acked.append(event)

    acks = OrderedAcks(ack)
    dead_letter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    aggregator.cache.set("d:1", 0, {"decision": "x"})
    aggregator.cache.set("__offsets__:qa.reviews:0", 0, {"next": 8}, last=True)
    aggregator._batch = Batch(events=["e6", "e7"], writes=[dead_letter], publish=[("d:1", 0)])
    flushing = asyncio.ensure_future(Aggregator._flush(aggregator, acks))
    await settle()
    assert [key for _, key, _ in table.sent] == ["d:1", "__offsets__:qa.reviews:0"]
    assert aggregator._batch == Batch()  # the next events gather in a new batch
    table.futures[0].set_result(None)
    dead_letter.set_result(None)
    await settle()
    assert acked == [] and published == []  # the input offset is not delivered yet
    table.futures[1].set_result(None)
    await settle()
    assert acked == ["e6", "e7"]
    assert published == [[("d:1", 0)]] and flushing.done()
    await acks.close()


async def test_a_failed_changelog_write_acks_nothing_and_stops_the_flusher():
    table = Changelog()
    aggregator: Any = Aggregator.__new__(Aggregator)
    aggregator.cache = TableCache(table)
    aggregator._room = asyncio.Event()
    published: list[Any] = []

    async def publish(queued: list[tuple[str, int]]) -> None:
        published.append(queued)

    aggregator._publish = publish
    acked: list[str] = []

    async def ack(event: str) -> None:
        acked.append(event)

    acks = OrderedAcks(ack)
    aggregator.cache.set("d:1", 0, {"decision": "x"})
    aggregator._batch = Batch(events=["e1"], publish=[("d:1", 0)])
    flushing = asyncio.ensure_future(Aggregator._flush(aggregator, acks))
    await settle()
    table.futures[0].set_exception(RuntimeError("the broker refused the changelog write"))
    await settle()
    assert flushing.done() and isinstance(flushing.exception(), RuntimeError)
    assert acked == [] and published == []  # nothing acked (redelivered), nothing published
    assert isinstance(acks.failure, RuntimeError)
    await acks.close()


async def test_the_offsets_view_writes_through_the_cache_after_the_entries():
    from streams.runtime._aggregator_table import OffsetsView

    table: Any = SimpleNamespace(data=MemoryStore())
    cache = TableCache(table)
    view = OffsetsView(cache)
    view["__offsets__:qa.drafts:3"] = {"next": 1}
    cache.set("d:1", 3, {"x": 1})
    assert view.get("__offsets__:qa.drafts:3") == {"next": 1}
    assert list(view) == ["__offsets__:qa.drafts:3"]
    sent: list[str] = []

    async def write_changelog(partition: int, key: str, value: Any) -> None:
        sent.append(f"{partition}/{key}")

    table.write_changelog = write_changelog
    await cache.flush()
    assert sent == ["3/d:1", "3/__offsets__:qa.drafts:3"]


async def test_changelog_writes_go_straight_to_the_producer_as_faust_would_serialize_them():
    from faust.serializers import codecs

    from streams.runtime._aggregator_table import DurableTable

    sent: list[dict[str, Any]] = []
    delivered: list[asyncio.Future[Any]] = []

    class Producer:
        async def send(self, topic: str, key: Any, value: Any, **kwargs: Any) -> Any:
            sent.append({"topic": topic, "key": key, "value": value, **kwargs})
            fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            delivered.append(fut)
            return fut

    async def producer() -> Producer:
        return Producer()

    persisted: list[tuple[Any, int]] = []

    class RocksStore:  # what write_changelog reads of Faust's RocksDB store
        _db_for_partition = None

        def set_persisted_offset(self, tp: Any, offset: int) -> None:
            persisted.append((tp, offset))

    table: Any = DurableTable.__new__(DurableTable)
    table._changelog_topic = SimpleNamespace(
        app=SimpleNamespace(maybe_start_producer=producer), get_topic_name=lambda: "t.changelog"
    )
    table._data = RocksStore()
    value = {"key": "d\u00e9:1", "results": {"critic": "AAE="}, "deadline": 1764651234.123456}
    first = await table.write_changelog(4, "d\u00e9:1", value)
    second = await table.write_changelog(4, "gone:1", None)  # a deletion: a tombstone
    assert [(s["topic"], s["partition"], s["headers"]) for s in sent] == [
        ("t.changelog", 4, [])
    ] * 2
    # What Faust's recovery reads back with the table's json serializer.
    assert codecs.loads("json", sent[0]["key"]) == "d\u00e9:1"
    assert codecs.loads("json", sent[0]["value"]) == value
    assert sent[1]["value"] is None and codecs.loads("json", sent[1]["key"]) == "gone:1"
    first.set_result(SimpleNamespace(topic_partition=("t.changelog", 4), offset=41))
    second.set_exception(RuntimeError("refused"))  # not delivered: no offset recorded
    await settle()
    assert persisted == [(("t.changelog", 4), 41)]
    second.exception()
