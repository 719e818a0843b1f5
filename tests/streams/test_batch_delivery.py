"""A fetched partition's valid events reach each agent as one batch event, and none of its offsets
is committed before every agent acknowledged the batch (streams.runtime._batch; real broker, the
worker's real Faust consumer and screen).

The scene: two agents read one batched topic with manual acks; `quick` acknowledges each batch at
once, `slow` holds what it got until told. While `slow` holds, nothing may be committed; a new
app of the group (a restart after a crash) gets every held draft again; once every agent
acknowledged, the commit covers the whole topic. Bad records between valid ones are taken out by
the screen (acknowledged there, no gap) and never reach an agent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from schemas import Codec, DraftSubmitted
from streams.runtime._batch import Batch, items
from streams.runtime._batch import ack as ack_item
from streams.runtime._screen import Screen
from streams.runtime.app import make_faust_app
from streams.runtime.serde import EventSchema
from tests.helpers.drafts import make_draft
from tests.streams.stream_helpers import delete_topics, stream_config

DRAFTS = 40
BAD = {10, 11, 25}  # offsets of records that are not drafts


async def produce(bootstrap: str, topic: str) -> list[str]:
    """DRAFTS + len(BAD) records on partition 0, bad ones at the BAD offsets; returns the ids
    of the valid drafts in offset order."""
    codec = Codec()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20)
    await producer.start()
    ids: list[str] = []
    try:
        futures = []
        for offset in range(DRAFTS + len(BAD)):
            if offset in BAD:
                futures.append(
                    await producer.send(topic, b"\x00not a draft", key=b"x", partition=0)
                )
                continue
            draft = make_draft(draft_id=f"d{offset}")
            ids.append(draft.draft_id)
            value = codec.encode(draft)
            futures.append(
                await producer.send(topic, value, key=draft.draft_id.encode(), partition=0)
            )
        for future in futures:
            await future
    finally:
        await producer.stop()
    return ids


async def committed(bootstrap: str, group: str, topic: str) -> int | None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    meta = offsets.get(TopicPartition(topic, 0))
    return None if meta is None else meta.offset


class Scene:
    """One worker app of the group with the two agents (see the module docstring)."""

    def __init__(self, config: Any, topic: str, group: str) -> None:
        self.app = make_faust_app(config, group)
        schema = EventSchema(DraftSubmitted)
        self.app.screen = Screen({topic: schema}, batched=(topic,))
        source = self.app.topic(topic, schema=schema)
        self.events: dict[str, list[Any]] = {"quick": [], "slow": []}
        self.held: list[Any] = []
        self.release = asyncio.Event()

        @self.app.agent(source, name="quick")
        async def quick(stream: Any) -> None:
            manual = stream.noack()
            async for event in manual.events():
                self.events["quick"].append(event)
                for item in items(event):
                    await ack_item(manual, item)

        @self.app.agent(source, name="slow")
        async def slow(stream: Any) -> None:
            manual = stream.noack()
            async for event in manual.events():
                self.events["slow"].append(event)
                self.held.append(event)
                if self.release.is_set():
                    while self.held:
                        await manual.ack(self.held.pop(0))

    def drafts(self, agent: str) -> list[str]:
        return [item.value.draft_id for event in self.events[agent] for item in items(event)]

    async def wait_for(self, agent: str, count: int) -> None:
        async with asyncio.timeout(60):
            while len(self.drafts(agent)) < count:
                await asyncio.sleep(0.05)


@pytest.mark.timeout(240)
async def test_a_batch_is_one_event_per_agent_committed_only_once_every_agent_acked_it(
    kafka_bootstrap, tmp_path
):
    config = stream_config(kafka_bootstrap, str(tmp_path))
    topic, group = f"{config.app_prefix}.drafts", f"{config.app_prefix}-batch"
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 1, 1)])
    finally:
        await admin.close()
    ids = await produce(kafka_bootstrap, topic)
    try:
        first = Scene(config, topic, group)
        await first.app.start()
        try:
            await first.wait_for("quick", DRAFTS)
            await first.wait_for("slow", DRAFTS)
            for agent in ("quick", "slow"):
                events = first.events[agent]
                # Every valid draft once, in offset order; bad records reach no agent.
                assert first.drafts(agent) == ids
                assert all(type(e.value) is Batch for e in events)
                assert len(events) < DRAFTS  # batches, not one event per draft
            # The same batch event object is shared: one delivery per agent and batch.
            assert [e.message for e in first.events["quick"]] == [
                e.message for e in first.events["slow"]
            ]
            assert first.app.screen is not None and sum(first.app.screen.skipped.values()) == 3
            for _ in range(4):  # a few commit intervals, then a commit of our own
                await asyncio.sleep(config.broker_commit_interval)
            await first.app.consumer.commit()
            # `slow` holds every batch: nothing is committable (the bad offsets acked by the
            # screen are not a run from the committed offset either).
            assert (await committed(kafka_bootstrap, group, topic)) in (None, -1, 0)
        finally:
            await first.app.stop()  # a crash for what is held: nothing was committed

        second = Scene(config, topic, group)
        second.release.set()
        await second.app.start()
        try:
            # Every draft the first app's `slow` held comes again, whole batches.
            await second.wait_for("slow", DRAFTS)
            assert second.drafts("slow") == ids
            await second.wait_for("quick", DRAFTS)
            end = DRAFTS + len(BAD)
            async with asyncio.timeout(60):
                while (await committed(kafka_bootstrap, group, topic)) != end:
                    await second.app.consumer.commit()
                    await asyncio.sleep(config.broker_commit_interval)
        finally:
            await second.app.stop()
    finally:
        await delete_topics(config)
