"""The aggregator timer's index of due times (streams.runtime._due): what is due comes out once,
in time order; a superseded or discarded time never comes out; a rebuild replaces everything."""

from __future__ import annotations

from streams.runtime._due import REBUILD_SECONDS, DueTimes


def test_due_keys_come_out_once_in_time_order_with_their_partition():
    due = DueTimes()
    due.set("b", 20.0, 1)
    due.set("a", 10.0, 0)
    due.set("c", 30.0, 2)
    assert due.take_due(5.0) == []
    assert due.take_due(20.0) == [("a", 0), ("b", 1)]
    assert due.take_due(25.0) == []
    assert len(due) == 1
    assert due.take_due(100.0) == [("c", 2)]


def test_a_changed_time_supersedes_the_old_and_a_discarded_key_never_comes_out():
    due = DueTimes()
    due.set("later", 10.0, 0)
    due.set("later", 50.0, 0)  # the entry changed: due later now
    due.set("sooner", 40.0, 0)
    due.set("sooner", 5.0, 3)
    due.set("gone", 1.0, 0)
    due.discard("gone")
    assert due.take_due(20.0) == [("sooner", 3)]
    assert due.take_due(60.0) == [("later", 0)]
    assert due.take_due(1e9) == []


def test_a_rebuild_replaces_everything_and_is_asked_for_when_invalidated_or_old():
    due = DueTimes()
    assert due.needs_rebuild(0.0)  # never walked
    due.set("stale", 1.0, 0)
    due.rebuild([("x", 3.0, 1), ("y", 2.0, 0)], now=100.0)
    assert not due.needs_rebuild(100.0 + REBUILD_SECONDS / 2)
    assert due.needs_rebuild(100.0 + REBUILD_SECONDS)
    assert due.take_due(10.0) == [("y", 0), ("x", 1)]  # "stale" went with the rebuild
    due.invalidate()
    assert due.needs_rebuild(101.0)
    assert due.rebuilds == 1


def test_many_changes_to_few_keys_keep_the_heap_small_and_the_answers_right():
    due = DueTimes()
    for n in range(10_000):
        due.set(f"k{n % 3}", float(n), n % 3)
    assert len(due._heap) <= 4 * 3 + 1024 + 1
    assert due.take_due(1e9) == [("k1", 1), ("k2", 2), ("k0", 0)]  # last set: 9997, 9998, 9999


async def test_the_timer_nudges_an_unpublished_decision_unless_the_flusher_is_publishing_it():
    import asyncio
    from types import SimpleNamespace
    from typing import Any

    from faust.types import TP

    from streams.runtime._cache import TableCache
    from streams.runtime.aggregator import Aggregator
    from streams.runtime.config import StreamConfig

    config = StreamConfig(drafts_topic="t.drafts", aggregator_tick_seconds=1.0)
    recovered = asyncio.Event()
    recovered.set()

    async def nothing(*args: Any) -> None:
        return None

    nudged: list[bytes] = []

    async def send(key: bytes, value: bytes, partition: int) -> None:
        nudged.append(key)

    store = SimpleNamespace(data={}, _key_partition={})
    aggregator: Any = Aggregator.__new__(Aggregator)
    aggregator.app = SimpleNamespace(
        tables=SimpleNamespace(recovery=SimpleNamespace(completed=recovered)),
        rebalancing=False,
        in_recovery=False,
        consumer=SimpleNamespace(assignment=lambda: {TP("t.drafts", 0)}),
        consumer_generation_id=1,
    )
    aggregator.config = config
    aggregator.parker = SimpleNamespace(forget=lambda inputs: None)
    aggregator.offsets = SimpleNamespace(resync=nothing, reseek_stalled=nothing)
    aggregator.cache = TableCache(SimpleNamespace(data=store))
    aggregator.due = DueTimes()
    aggregator._due_view = None
    aggregator._nudged = {}
    aggregator._inputs = {"t.drafts", "t.reviews"}
    aggregator.nudges = SimpleNamespace(send=send)
    aggregator.clock = lambda: 1000.0
    decided = {"partition": 0, "created_at": 900.0, "decision": "x", "decided_at": 990.0}
    for key in ("queued:1", "stranded:1"):
        store.data[key] = {**decided, "published": False}
    # "queued:1" waits for the flush that publishes it; "stranded:1" (e.g. read back from the
    # changelog after a crash) has nobody publishing it: only it is nudged.
    aggregator._publishing = {"queued:1"}
    assert await aggregator.scan() == 1 and nudged == [b"stranded:1"]
    aggregator._publishing = set()  # the flush failed: the agent restarted, nothing queued
    aggregator.clock = lambda: 1010.0
    assert await aggregator.scan() == 2 and nudged[1:] == [b"queued:1", b"stranded:1"]
