"""The aggregator's table state without a broker: entries and settings survive the JSON round
trip (what the changelog stores), and input offsets decide which events are applied."""

from __future__ import annotations

import json

from faust.types import TP

from agents.settings import Settings
from schemas import Provider, ReviewerResult, encode
from streams._offsets import MAX_SEEKS, RESEEK_SECONDS, InputOffsets, is_offset_key, offset_key
from streams.aggregator import Entry, _b64, settings_to_mapping


def test_settings_survive_the_changelog_round_trip_with_the_same_version():
    settings = Settings(
        qa_final_score_threshold=65.0,
        qa_critic_enabled=False,
        qa_required_to_pass="urls,citations",
        extra={"content_validator_disabled_rules.tech": "filler_intro"},
    )
    stored = json.loads(json.dumps(settings_to_mapping(settings)))
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
        settings=settings_to_mapping(Settings()),
    )
    again = Entry.from_json(json.loads(json.dumps(entry.to_json())))
    assert again == entry
    assert again.pending() == ["validator"]
    assert [r.reviewer for r in again.counted_results()] == ["critic"]
    assert again.effective_settings() == Settings()


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
    offsets = InputOffsets(table, seek, clock)
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
    offsets = InputOffsets(table, seek, clock)
    tp = TP("qa.drafts", 0)
    assert not await offsets.admit(tp, 9)
    for _ in range(MAX_SEEKS + 1):
        clock.now += RESEEK_SECONDS
        await offsets.reseek_stalled([tp])
    assert seeks == [5] * MAX_SEEKS
    assert await offsets.admit(tp, 9)  # gone for good (retention): continue from what comes


async def test_offsets_resync_seeks_every_assigned_partition_once_per_generation():
    table = {offset_key(TP("qa.reviews", 0)): {"next": 3}}
    seeks: list[tuple[TP, int]] = []

    async def seek(tp: TP, offset: int) -> None:
        seeks.append((tp, offset))

    offsets = InputOffsets(table, seek, Clock())
    assigned = [TP("qa.reviews", 0), TP("qa.reviews", 1)]
    await offsets.resync(assigned, generation=4)
    await offsets.resync(assigned, generation=4)
    assert seeks == [(TP("qa.reviews", 0), 3)]  # partition 1 has no stored offset yet
    await offsets.resync(assigned, generation=5)
    assert seeks == [(TP("qa.reviews", 0), 3)] * 2
