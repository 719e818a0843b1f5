"""Decided entries leave the aggregator's table after `decided_retention_seconds` (so the table
stays bounded); a result arriving after that starts an orphan entry that goes the same way."""

from __future__ import annotations

import asyncio

from agents.registry import get_reviewer
from schemas import DraftSubmitted, Provider, QADecision, ReviewerResult, encode
from streams.client import DraftSubmitter
from streams.runtime.app import create_app
from streams.runtime.topics import ensure_topics
from tests.streams.stream_helpers import TopicReader, delete_topics, send_raw, stream_config


async def _until(predicate, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)


async def test_decided_and_orphan_entries_are_dropped_after_retention(kafka_bootstrap, tmp_path):
    config = stream_config(kafka_bootstrap, str(tmp_path), decided_retention_seconds=1.0)
    await ensure_topics(config)
    stream = create_app(config, roster=[get_reviewer("validator")], with_sinks=False)
    decisions = await TopicReader(kafka_bootstrap, config.decisions_topic, QADecision).start()
    await stream.start()
    try:
        aggregator = stream.aggregator
        assert aggregator is not None
        async with DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic) as submitter:
            await submitter.submit(DraftSubmitted("kept-1", 1, "Kettles", "Kettles boil. " * 40))
        await decisions.wait_for(lambda vs: len(vs) == 1)
        await _until(lambda: aggregator.entry("kept-1", 1) is None)
        late = ReviewerResult(
            "critic", True, 90.0, "late", Provider.OLLAMA, draft_id="kept-1", version=1
        )
        await send_raw(kafka_bootstrap, config.reviews_topic, encode(late), key=b"kept-1")
        await _until(lambda: aggregator.entry("kept-1", 1) is not None)  # an orphan now
        orphan = aggregator.entry("kept-1", 1)
        assert orphan is not None and orphan.draft is None
        await _until(lambda: aggregator.entry("kept-1", 1) is None)
        assert len(decisions.values()) == 1  # and it decided nothing
    finally:
        await decisions.stop()
        await stream.stop()
        await delete_topics(config)
