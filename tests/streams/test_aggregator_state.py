"""The aggregator's table state without a broker: entries and settings survive the JSON round
trip (what the changelog stores), and input offsets decide which events are applied."""

from __future__ import annotations

import json
from typing import Any

import pytest
from faust.types import TP

import schemas
from agents.settings import Settings
from schemas import Provider, ReviewerResult, encode
from streams.runtime._entry import _CONTAINERS, Entry, _b64
from streams.runtime._offsets import (
    MAX_SEEKS,
    RESEEK_SECONDS,
    InputOffsets,
    is_offset_key,
    offset_key,
)


def test_settings_survive_the_changelog_round_trip_with_the_same_version():
    settings = Settings(
        qa_final_score_threshold=65.0,
        qa_critic_enabled=False,
        qa_required_to_pass="urls,citations",
        extra={"content_validator_disabled_rules.tech": "filler_intro"},
    )
    stored = json.loads(json.dumps(settings.to_mapping()))
    restored = Settings.from_mapping(stored)
    assert restored == settings
    assert restored.version() == settings.version()


def test_entry_round_trips_through_json_and_counts_only_expected_reviewers():
    result = ReviewerResult("critic", True, 80.0, "ok", Provider.OLLAMA, draft_id="d", version=1)
    extra = ReviewerResult("vision", True, 10.0, "x", Provider.VISION_GATE, draft_id="d", version=1)
    entry = Entry(
        key="d:1",
        partition=2,
        created_at=1.0,
        expected=["validator", "critic"],
        results={"critic": _b64(encode(result)), "vision": _b64(encode(extra))},
        settings=Settings().to_mapping(),
    )
    again = Entry.from_json(json.loads(json.dumps(entry.to_json())))
    assert again == entry
    assert again.pending() == ["validator"]
    assert [r.reviewer for r in again.counted_results()] == ["critic"]
    assert again.effective_settings() == Settings()


async def no_position(tp: TP) -> int | None:
    return None


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_offsets_apply_in_sequence_skip_redeliveries_and_seek_back_over_gaps():
    table: dict = {}
    seeks: list[tuple[TP, int]] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append((tp, offset))

    clock = Clock()
    offsets = InputOffsets(table, seek, clock, position=no_position)
    tp = TP("qa.reviews", 1)
    assert await offsets.admit(tp, 7)  # nothing stored yet: the first event starts the sequence
    offsets.applied(tp, 7)
    assert is_offset_key(offset_key(tp)) and table[offset_key(tp)] == {"next": 8}
    assert not await offsets.admit(tp, 7)  # a re-delivery
    assert not await offsets.admit(tp, 11)  # 8-10 were skipped: seek back once
    assert not await offsets.admit(tp, 12)
    assert seeks == [(tp, 8)]
    assert await offsets.admit(tp, 8)  # the expected event came back
    offsets.applied(tp, 8)
    assert not await offsets.admit(tp, 12)
    assert seeks == [(tp, 8), (tp, 9)]


async def test_offsets_reseek_a_stalled_partition_then_give_up_loudly():
    table: dict = {offset_key(TP("qa.drafts", 0)): {"next": 5}}
    seeks: list[int] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append(offset)

    clock = Clock()
    offsets = InputOffsets(table, seek, clock, position=no_position)
    tp = TP("qa.drafts", 0)
    assert not await offsets.admit(tp, 9)
    for _ in range(MAX_SEEKS + 1):
        clock.now += RESEEK_SECONDS
        await offsets.reseek_stalled([tp])
    assert seeks == [5] * MAX_SEEKS
    assert await offsets.admit(tp, 9)  # gone for good (retention): continue from what comes


async def test_offsets_resync_seeks_back_once_per_generation_and_never_forward():
    # The table expects 3 on reviews[0] and 40 on drafts[1]; the group committed 9 on reviews[0]
    # (past the table: Faust committed past events it skipped) and 25 on drafts[1].
    table = {
        offset_key(TP("qa.reviews", 0)): {"next": 3},
        offset_key(TP("qa.drafts", 1)): {"next": 40},
    }
    committed = {TP("qa.reviews", 0): 9, TP("qa.reviews", 1): None, TP("qa.drafts", 1): 25}
    positions = {TP("qa.reviews", 0): 9, TP("qa.reviews", 1): 0, TP("qa.drafts", 1): 25}
    seeks: list[tuple[TP, int]] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append((tp, offset))

    async def position(tp: TP) -> int | None:
        return positions[tp]

    offsets = InputOffsets(table, seek, Clock(), position=position, committed=committed.get)
    assigned = [TP("qa.reviews", 0), TP("qa.reviews", 1), TP("qa.drafts", 1)]
    await offsets.resync(assigned, generation=4)
    await offsets.resync(assigned, generation=4)
    # reviews[0]: committed past what the table holds (events skipped): back to 3. reviews[1]:
    # nothing stored yet. drafts[1]: behind the table (a fail-over: the group's commit waits for
    # the slowest role): not sought forward, or every other role of the process skips 25-39.
    assert seeks == [(TP("qa.reviews", 0), 3)]
    await offsets.resync(assigned, generation=5)
    assert seeks == [(TP("qa.reviews", 0), 3)] * 2
    # The events behind the table come again and are ignored by the aggregator, then 40 applies.
    drafts1 = TP("qa.drafts", 1)
    assert [await offsets.admit(drafts1, o) for o in range(25, 41)] == [False] * 15 + [True]
    assert seeks == [(TP("qa.reviews", 0), 3)] * 2


async def test_offsets_resync_leaves_prefetched_events_alone_and_seeks_only_when_they_stall():
    # A worker starts: the table expects 2 on drafts[0] and drafts[1], nothing is committed past
    # that, and the consumer has fetched both partitions to their end (17 and 36): the events
    # 2-16 and 2-35 are in the agents' queues, not lost. Seeking back then moved the consumer
    # under a batch still being handed out, and Faust took the rest of it for a gap it counts as
    # acknowledged (tests/streams/test_seek_gap.py).
    drafts0, drafts1 = TP("qa.drafts", 0), TP("qa.drafts", 1)
    table = {offset_key(drafts0): {"next": 2}, offset_key(drafts1): {"next": 2}}
    positions = {drafts0: 17, drafts1: 36}
    seeks: list[tuple[TP, int]] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append((tp, offset))

    async def position(tp: TP) -> int | None:
        return positions[tp]

    clock = Clock()
    offsets = InputOffsets(table, seek, clock, position=position, committed={drafts0: 2}.get)
    await offsets.resync([drafts0, drafts1], generation=1)
    assert seeks == []
    # drafts[0]'s queued events arrive and are applied: nothing to seek, ever.
    for offset in range(2, 17):
        assert await offsets.admit(drafts0, offset)
        offsets.applied(drafts0, offset)
    # drafts[1]'s expected event never comes (skipped by Faust): sought back once the watch has
    # waited RESEEK_SECONDS, then as any seek (again every RESEEK_SECONDS until it comes).
    clock.now += RESEEK_SECONDS - 0.1
    await offsets.reseek_stalled([drafts0, drafts1])
    assert seeks == []
    clock.now += 0.1
    await offsets.reseek_stalled([drafts0, drafts1])
    assert seeks == [(drafts1, 2)]
    clock.now += RESEEK_SECONDS
    await offsets.reseek_stalled([drafts0, drafts1])
    assert seeks == [(drafts1, 2)] * 2
    assert await offsets.admit(drafts1, 2)
    offsets.applied(drafts1, 2)
    clock.now += RESEEK_SECONDS
    await offsets.reseek_stalled([drafts0, drafts1])
    assert seeks == [(drafts1, 2)] * 2


async def test_offsets_a_gap_seen_while_watching_is_sought_back_at_once():
    drafts0 = TP("qa.drafts", 0)
    seeks: list[int] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append(offset)

    async def position(tp: TP) -> int | None:
        return 17

    table = {offset_key(drafts0): {"next": 2}}
    offsets = InputOffsets(table, seek, Clock(), position=position)
    await offsets.resync([drafts0], generation=1)
    assert seeks == []
    assert not await offsets.admit(drafts0, 5)  # 2-4 were skipped: no need to wait
    assert seeks == [2]


def _full_entry() -> Entry:
    result = ReviewerResult("critic", True, 80.0, "ok", Provider.OLLAMA, draft_id="d", version=1)
    entry = Entry(
        key="d:1",
        partition=0,
        created_at=1.0,
        draft={"draft_id": "d", "version": 1, "task_id": None, "title": "t"},
        expected=["validator", "critic"],
        settings=Settings().to_mapping(),
        settings_version=Settings().version(),
        result_spans={"critic": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"},
    )
    entry.add_result(result)
    entry.add_result(result, late=True)
    return entry


def test_every_container_field_of_an_entry_is_copied_on_store_and_load():
    entry = _full_entry()
    containers = {k for k, v in vars(entry).items() if isinstance(v, dict | list)}
    assert containers == set(_CONTAINERS)


def test_a_stored_entry_shares_no_container_with_the_entry_it_came_from_or_goes_to():
    """The memory store hands out the stored dict itself: a change to an entry must not reach the
    table before `_store` writes (and sends) it."""
    entry = _full_entry()
    stored = entry.to_json()
    snapshot = json.loads(json.dumps(stored))
    for name in _CONTAINERS:
        value = getattr(entry, name)
        if isinstance(value, dict):
            value["changed"] = "after the store"
        else:
            value.append("changed after the store")
    assert stored == snapshot
    loaded = Entry.from_json(stored)
    for name in _CONTAINERS:
        value = getattr(loaded, name)
        if isinstance(value, dict):
            value["changed"] = "after the load"
        else:
            value.append("changed after the load")
    assert stored == snapshot


def test_settings_are_reused_only_for_the_same_stored_values():
    """Two entries claiming the same settings version with different stored values (an entry
    written by other code) each get their own settings: the version is only a hint."""
    strict = Settings(qa_final_score_threshold=90.0)
    lenient = Settings(qa_final_score_threshold=10.0)
    one = Entry("a:1", 0, 1.0, settings=strict.to_mapping(), settings_version="same")
    two = Entry("b:1", 0, 1.0, settings=lenient.to_mapping(), settings_version="same")
    assert one.effective_settings() == strict
    assert two.effective_settings() == lenient
    assert one.effective_settings() == strict
    assert one.effective_settings() is one.effective_settings()  # reused while unchanged


def test_stored_results_are_decoded_once_and_always_by_their_stored_text(monkeypatch):
    import streams.runtime._entry as entries

    decoded: list[type] = []
    real_decode = schemas.decode  # what _entry imported

    def counting_decode(data, record_type):
        decoded.append(record_type)
        return real_decode(data, record_type)

    monkeypatch.setattr(entries, "decode", counting_decode)
    entries._DECODED.clear()
    first = ReviewerResult("critic", True, 80.0, "ok", Provider.OLLAMA, draft_id="d", version=1)
    other = ReviewerResult("critic", False, 20.0, "no", Provider.OLLAMA, draft_id="d", version=1)
    entry = Entry("d:1", 0, 1.0, expected=["critic"])
    entry.results["critic"] = _b64(encode(first))  # as read back from the changelog
    for _ in range(3):
        assert entry.counted_results() == [first]
    assert decoded == [ReviewerResult]
    # The same key rewritten (another worker, a restored changelog): the new text is read.
    entry.results["critic"] = _b64(encode(other))
    assert entry.counted_results() == [other]
    entry.add_result(first)  # encoded here: remembered, not decoded again
    assert entry.counted_results() == [first]
    assert decoded == [ReviewerResult, ReviewerResult]


async def test_entries_name_their_settings_by_version_stored_once_per_partition():
    from types import SimpleNamespace

    from streams.runtime._aggregator_table import SettingsVersions
    from streams.runtime._cache import TableCache
    from streams.runtime._entry import settings_key

    class MemoryStore:  # what TableCache reads and writes of Faust's memory store
        def __init__(self) -> None:
            self.data: dict = {}
            self._key_partition: dict = {}

    sent: list[tuple[int, str]] = []

    async def write_changelog(partition: int, key: str, value: Any) -> None:
        sent.append((partition, key))

    table = SimpleNamespace(data=MemoryStore(), write_changelog=write_changelog)
    holder = SettingsVersions(TableCache(table))
    before, after = Settings(), Settings(qa_aggregate_timeout_seconds=5.0)
    assert holder.store(before, 3) == before.version()
    assert holder.store(Settings(), 3) == before.version()  # equal: reused
    assert holder.store(Settings(), 4) == before.version()
    assert holder.store(after, 3) == after.version()
    await holder.cache.flush()
    # Each version's values once per table partition, next to the entries that name them.
    assert sorted(sent) == sorted(
        [(3, settings_key(before.version(), 3)), (4, settings_key(before.version(), 4)),
         (3, settings_key(after.version(), 3))]
    )  # fmt: skip
    stored = table.data.data[settings_key(after.version(), 3)]
    assert json.loads(json.dumps(stored)) == {"settings": after.to_mapping()}
    # A restart: nothing remembered; an entry naming a version reads it back from the table.
    restarted = SettingsVersions(TableCache(table))
    entry = Entry("d:1", 3, 1.0, settings_version=after.version())
    assert restarted.of(entry) == after
    assert restarted.of(entry).version() == after.version()
    # An entry from before settings_key holds its values itself.
    old = Entry("d:2", 3, 1.0, settings=before.to_mapping(), settings_version=before.version())
    assert restarted.of(old) == before
    missing = Entry("d:3", 5, 1.0, settings_version="0123456789abcdef")
    with pytest.raises(KeyError):
        restarted.of(missing)


def test_a_result_is_stored_as_the_bytes_it_arrived_as(monkeypatch):
    import streams.runtime._entry as entries
    from streams.runtime._entry import _unb64

    result = ReviewerResult("critic", True, 80.0, "ok", Provider.OLLAMA, draft_id="d", version=1)
    raw = encode(result)
    monkeypatch.setattr(entries, "encode", lambda record: pytest.fail("encoded again"))
    entry = Entry("d:1", 0, 1.0, expected=["critic"])
    entry.add_result(result, encoded=raw)
    assert _unb64(entry.results["critic"]) == raw
    assert entry.counted_results() == [result]
