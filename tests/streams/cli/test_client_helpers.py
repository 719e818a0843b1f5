"""streams.client, the writer's and the publisher's helpers, round trip through the real broker."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import uuid

import pytest
from aiokafka import AIOKafkaConsumer

from schemas import DraftSubmitted, InvalidRecordError, decode, encode
from streams.client import (
    BrokerUnavailableError,
    DecisionTail,
    DraftSubmitter,
    decisions,
    submit_draft,
)
from tests.helpers.drafts import make_draft

TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$")


async def drafts_on(cli_env, count: int):
    consumer = AIOKafkaConsumer(
        cli_env.config.drafts_topic,
        bootstrap_servers=cli_env.config.bootstrap_servers,
        auto_offset_reset="earliest",
    )
    await consumer.start()
    try:
        records: list = []
        for _ in range(60):
            if len(records) >= count:
                break
            batch = await consumer.getmany(timeout_ms=1000)
            records += [r for rs in batch.values() for r in rs]
        return records
    finally:
        await consumer.stop()


async def test_submit_draft_round_trips_with_a_fresh_traceparent(cli_env):
    config = cli_env.config
    submission = await submit_draft(
        config.bootstrap_servers,
        make_draft(draft_id="w-1", task_id="task-1"),
        topic=config.drafts_topic,
    )

    [record] = await drafts_on(cli_env, 1)
    assert (record.partition, record.offset) == (submission.partition, submission.offset)
    assert record.key == b"w-1"
    assert decode(record.value, DraftSubmitted) == submission.draft
    expected = make_draft(
        draft_id="w-1", task_id="task-1"
    )  # one call: two would stamp two different submitted_at (flaky)
    assert dataclasses.replace(submission.draft, submitted_at=expected.submitted_at) == expected
    headers = dict(record.headers)
    assert headers["traceparent"].decode() == submission.traceparent
    assert TRACEPARENT.match(submission.traceparent)


async def test_submit_keeps_the_callers_trace_and_uses_the_sdk_span_when_configured(cli_env, spans):
    config = cli_env.config
    given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    async with DraftSubmitter(config.bootstrap_servers, topic=config.drafts_topic) as submitter:
        kept = await submitter.submit(make_draft(draft_id="w-given"), traceparent=given)
        traced = await submitter.submit(make_draft(draft_id="w-traced"))
    assert kept.traceparent == given

    # With an SDK installed, the header is the finished `multiqa.submit` span's context.
    [span] = [s for s in spans.get_finished_spans() if s.name == "multiqa.submit"]
    match = TRACEPARENT.match(traced.traceparent or "")
    assert match is not None
    trace_id, span_id = match.groups()
    assert int(trace_id, 16) == span.context.trace_id
    assert int(span_id, 16) == span.context.span_id
    assert span.attributes["multiqa.draft_id"] == "w-traced"

    records = {r.key: dict(r.headers) for r in await drafts_on(cli_env, 2)}
    assert records[b"w-given"]["traceparent"].decode() == given
    assert records[b"w-traced"]["traceparent"].decode() == traced.traceparent


async def test_an_invalid_draft_is_refused_before_anything_is_sent(cli_env):
    config = cli_env.config
    with pytest.raises(InvalidRecordError):
        await submit_draft(
            config.bootstrap_servers,
            make_draft(draft_id=""),
            topic=config.drafts_topic,
        )
    end = DecisionTail(config.bootstrap_servers, topic=config.drafts_topic, from_beginning=True)
    async with end as tail:  # nothing on the topic: the codec refused the record first
        assert await tail.existing() == []


async def test_submit_to_an_unreachable_broker_is_one_clear_error():
    with pytest.raises(BrokerUnavailableError, match=r"cannot reach Kafka at 127\.0\.0\.1:1"):
        await submit_draft("127.0.0.1:1", make_draft(draft_id="w-1"))


async def test_decisions_is_a_consumer_group_that_drops_redeliveries(
    cli_env, make_decision, create_topics, unique_topics
):
    # One partition, so the order below is the topic's order.
    [topic] = await create_topics(unique_topics("publisher.decisions"), partitions=1)
    bootstrap = cli_env.config.bootstrap_servers
    first, second, third = (make_decision(f"p-{n}") for n in range(3))
    for decision in (first, second, first):  # the second `first` is a re-delivery: same id
        await cli_env.produce(topic, encode(decision), decision.draft_id.encode())
    await cli_env.produce(topic, b"\x00\x01garbage", b"p-0")
    await cli_env.produce(topic, encode(third), b"p-2")
    group = f"publisher-{uuid.uuid4().hex[:8]}"

    seen = []
    async with contextlib.aclosing(decisions(bootstrap, group_id=group, topic=topic)) as stream:
        async for decision in stream:
            seen.append(decision.draft_id)
            if len(seen) == 3:
                break
    assert seen == ["p-0", "p-1", "p-2"]

    # A new member of the group resumes after the last decision the loop asked past: the one
    # being handled when the loop stopped comes again (at least once), nothing before it.
    await cli_env.produce(topic, encode(make_decision("p-3")), b"p-3")
    again = []
    async with contextlib.aclosing(decisions(bootstrap, group_id=group, topic=topic)) as stream:
        async for decision in stream:
            again.append(decision.draft_id)
            if decision.draft_id == "p-3":
                break
    assert again == ["p-2", "p-3"]
