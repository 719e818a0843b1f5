"""Every decision path through the real stream on the real broker: one all-in-one stream serves
the whole module, with the real validator, the real URL verifier (a link to a loopback address is
dead: the URL guard refuses it, no network involved) and a scripted paid `critic` standing in for
the LLM; each test uses its own draft ids, whose prefixes script the critic (stream_fakes.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from aiokafka import AIOKafkaConsumer, TopicPartition

from agents.aggregate import decision_id
from agents.registry import get_reviewer
from agents.settings import Settings
from schemas import (
    DeadLetter,
    DraftSubmitted,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    encode,
)
from streams.client import DraftSubmitter
from streams.runtime.app import MultiQA, Runtime, create_app
from streams.runtime.reviewer_agents import ALREADY_DECIDED
from streams.runtime.topics import ensure_topics
from tests.helpers.drafts import KETTLES, REFUSAL
from tests.streams.stream_fakes import HOLD, INVALID, NEVER, Scripted
from tests.streams.stream_helpers import (
    TopicReader,
    delete_topics,
    send_raw,
    span_exporter,
    stream_config,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLEAN = KETTLES * 8
CRITICAL = REFUSAL + CLEAN
DEAD_LINK = CLEAN + "See [the maker's manual](http://127.0.0.1:9/manual) for details."


@dataclass
class Env:
    stream: MultiQA
    submitter: DraftSubmitter
    decisions: TopicReader
    reviews: TopicReader
    dead_letters: TopicReader
    critic: Scripted
    settings: list[Settings]  # [current]: what the runtime's settings source returns

    @property
    def config(self):
        return self.stream.config

    async def submit(self, draft_id: str, version: int = 1, content: str = CLEAN) -> None:
        await self.submitter.submit(DraftSubmitted(draft_id, version, "Kettles", content))

    async def decision(self, draft_id: str, version: int = 1) -> QADecision:
        wanted = decision_id(draft_id, version)
        values = await self.decisions.wait_for(
            lambda vs: any(isinstance(v, QADecision) and v.decision_id == wanted for v in vs)
        )
        (found,) = {
            v for v in values if isinstance(v, QADecision) and v.decision_id == wanted
        }  # every copy identical
        return found

    def decisions_for(self, draft_id: str) -> list[QADecision]:
        return [v for v in self.decisions.values() if getattr(v, "draft_id", None) == draft_id]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(kafka_bootstrap, tmp_path_factory) -> AsyncIterator[Env]:
    span_exporter()  # spans from the start
    config = stream_config(kafka_bootstrap, str(tmp_path_factory.mktemp("faust")))
    await ensure_topics(config)
    critic = Scripted(
        "critic",
        Provider.OLLAMA,
        paid=True,
        script={
            "never-": NEVER,
            "sc-": NEVER,
            "early-": NEVER,
            "hold-": HOLD,
            "invalid-": INVALID,
        },
    )
    current = [Settings(qa_aggregate_timeout_seconds=60.0)]

    async def settings() -> Settings:
        return current[0]

    stream = create_app(
        config,
        roster=[get_reviewer("validator"), critic.spec, get_reviewer("urls")],
        with_sinks=False,
        runtime=Runtime(config, settings=settings),
    )
    readers = [
        TopicReader(kafka_bootstrap, config.decisions_topic, QADecision),
        TopicReader(kafka_bootstrap, config.reviews_topic, ReviewerResult),
        TopicReader(kafka_bootstrap, config.dead_letters_topic, DeadLetter),
    ]
    await stream.start()
    for reader in readers:
        await reader.start()
    submitter = DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic)
    await submitter.start()
    try:
        decisions, reviews, dead_letters = readers
        yield Env(stream, submitter, decisions, reviews, dead_letters, critic, current)
    finally:
        await submitter.stop()
        for reader in readers:
            await reader.stop()
        await stream.stop()
        await delete_topics(config)


async def test_timeout_decides_with_the_missing_reviewer_named_and_no_further_traffic(env):
    # First in the module: after this draft nothing else is sent, so only the wall-clock timer
    # can make this decision.
    env.settings[0] = Settings(qa_aggregate_timeout_seconds=1.0)
    try:
        await env.submit("never-1")
        decision = await env.decision("never-1")
    finally:
        env.settings[0] = Settings(qa_aggregate_timeout_seconds=60.0)
    assert decision.timed_out
    assert decision.missing_reviewers == ("critic",)
    assert [r.reviewer for r in decision.reviews] == ["validator", "urls"]
    assert decision.approved  # validator and urls approve; the score is the validator's
    assert not decision.early_decided and not decision.short_circuited
    # The decision cancels the critic's review, which still answers: skipped, recorded as late.
    await env.reviews.wait_for(lambda vs: _skipped_already_decided(vs, "never-1"))
    entry = await _entry_when(env, "never-1", lambda e: "critic" in e.late)
    assert entry.decided_by == "timeout" and entry.published
    assert env.critic.cancelled.count("never-1") == 1
    assert len(env.decisions_for("never-1")) == 1
    # The timer found the deadline in its index of due times: it walked the whole table once
    # after the partitions were assigned (and again only if they changed), not every 0.2 s tick.
    aggregator = env.stream.aggregator
    assert aggregator is not None and 1 <= aggregator.due.rebuilds <= 2


async def test_all_answered_decides_with_every_review(env):
    await env.submit("ok-1")
    decision = await env.decision("ok-1")
    assert [r.reviewer for r in decision.reviews] == ["validator", "critic", "urls"]
    statuses = {r.reviewer: r.status for r in decision.reviews}
    # no links: urls has nothing to check, which is no score (and satisfies qa_required_to_pass)
    assert statuses == {"validator": "ok", "critic": "ok", "urls": "skipped"}
    assert decision.reviews[2].feedback == "not applicable: no external links to verify"
    assert decision.missing_reviewers == ()
    assert decision.approved and not decision.timed_out and not decision.early_decided
    # weights: validator 0.4, critic 0.6; urls stays out of the mean
    assert decision.final_score == pytest.approx(0.4 * 100 + 0.6 * 90)
    assert decision.settings_version == env.settings[0].version()
    entry = env.stream.aggregator.entry("ok-1", 1)
    assert entry.decided_by == "complete"
    assert entry.expected == ["validator", "critic", "urls"]
    assert entry.settings_version == env.settings[0].version()


async def test_validator_critical_short_circuits_at_once(env):
    await env.submit("sc-1", content=CRITICAL)
    decision = await env.decision("sc-1")
    assert decision.short_circuited and not decision.approved
    assert "critic" in decision.missing_reviewers  # the critic never answered before it
    assert decision.vetoes and decision.vetoes[0].startswith("validator critical")
    await env.reviews.wait_for(lambda vs: _skipped_already_decided(vs, "sc-1"))


async def test_early_reject_when_the_threshold_is_out_of_reach_cancels_the_paid_critic(env):
    await env.submit("early-1", content=DEAD_LINK)
    decision = await env.decision("early-1")
    assert decision.early_decided and not decision.approved and not decision.timed_out
    # The urls veto settles it whether or not the (free) validator had answered yet.
    assert "critic" in decision.missing_reviewers
    assert set(decision.missing_reviewers) <= {"validator", "critic"}
    assert any(v.startswith("urls: 1 dead link") for v in decision.vetoes)
    await env.reviews.wait_for(lambda vs: _skipped_already_decided(vs, "early-1"))
    assert "early-1" in env.critic.cancelled
    entry = await _entry_when(env, "early-1", lambda e: "critic" in e.late)
    assert entry.decided_by == "settled"


async def test_duplicate_and_late_results_change_nothing(env):
    await env.submit("ok-dup")
    first = await env.decision("ok-dup")
    values = await env.reviews.wait_for(
        lambda vs: any(_result_of(v, "ok-dup", "validator") for v in vs)
    )
    validator_result = next(v for v in values if _result_of(v, "ok-dup", "validator"))
    duplicate = dataclasses.replace(validator_result, score=1.0, feedback="a changed duplicate")
    late = ReviewerResult(
        "vision", False, 0.0, "late", Provider.VISION_GATE, draft_id="ok-dup", version=1
    )
    duplicates_before = env.stream.aggregator.counts["duplicates"]
    for result in (duplicate, duplicate, late):
        await send_raw(
            env.config.bootstrap_servers, env.config.reviews_topic, encode(result), key=b"ok-dup"
        )
    entry = await _entry_when(env, "ok-dup", lambda e: "vision" in e.late)
    assert env.stream.aggregator.counts["duplicates"] >= duplicates_before + 2
    assert "validator" not in entry.late  # a duplicate is not a late result
    # A result after the decision may not produce another: ok-dup-after is decided later on the
    # same partition, so by then the aggregator has handled everything sent for ok-dup.
    await env.submit("ok-dup-after")
    await env.decision("ok-dup-after")
    assert env.decisions_for("ok-dup") == [first]


async def test_resubmitted_version_is_a_new_review(env):
    await env.submit("ok-re", version=1)
    v1 = await env.decision("ok-re", 1)
    await env.submit("ok-re", version=2, content=CRITICAL)
    v2 = await env.decision("ok-re", 2)
    assert (v1.version, v2.version) == (1, 2)
    assert v1.decision_id != v2.decision_id
    assert v1.approved and not v2.approved and v2.short_circuited
    # re-delivering version 1 reviews nothing anew and decides nothing anew
    await env.submit("ok-re", version=1)
    await env.submit("ok-re-after")
    await env.decision("ok-re-after")
    assert sorted(d.version for d in env.decisions_for("ok-re")) == [1, 2]


async def test_bad_events_on_every_input_topic_are_dead_lettered_and_the_stream_moves_on(env):
    config = env.config
    bootstrap = config.bootstrap_servers
    truncated = encode(DraftSubmitted("bad-t", 1, "T", CLEAN))[:-20]
    # Schema-valid but semantically invalid: a score of 150 (patched into a valid payload).
    valid = encode(
        ReviewerResult("critic", True, 42.125, "x", Provider.OLLAMA, draft_id="ok-x", version=1)
    )
    out_of_range = valid.replace(struct.pack("<d", 42.125), struct.pack("<d", 150.0))
    await send_raw(bootstrap, config.drafts_topic, b"garbage!", key=b"bad-d")
    await send_raw(bootstrap, config.drafts_topic, truncated, key=b"bad-t")
    await send_raw(bootstrap, config.reviews_topic, b"\xc3\x01zz", key=b"bad-r")
    await send_raw(bootstrap, config.reviews_topic, out_of_range, key=b"bad-s")
    # Valid, but keyed by something other than its draft_id: it may sit on the wrong partition.
    misrouted = encode(DraftSubmitted("ok-elsewhere", 1, "T", CLEAN))
    await send_raw(bootstrap, config.drafts_topic, misrouted, key=b"bad-k")
    await env.submit("ok-after-garbage")
    assert (await env.decision("ok-after-garbage")).approved

    def parked(values):
        return [(v.source_topic, v.consumer, v.key) for v in values if isinstance(v, DeadLetter)]

    # One role owns each topic's bad events (the aggregator, for drafts and results): one dead
    # letter per bad event, the reviewers skip them and count them.
    expected = [(config.drafts_topic, "aggregator", key) for key in (b"bad-d", b"bad-t", b"bad-k")]
    expected += [(config.reviews_topic, "aggregator", key) for key in (b"bad-r", b"bad-s")]
    values = await env.dead_letters.wait_for(lambda vs: set(expected) <= set(parked(vs)))
    letters = {(d.key, d.consumer): d for d in values if isinstance(d, DeadLetter)}
    garbage = letters[b"bad-d", "aggregator"]
    assert garbage.raw == b"garbage!"
    assert garbage.error_type == "BadMagicError"
    assert garbage.source_offset >= 0 and garbage.source_partition == 0
    assert letters[b"bad-t", "aggregator"].error_type == "TruncatedError"
    assert letters[b"bad-r", "aggregator"].error_type == "TruncatedError"
    invalid = letters[b"bad-s", "aggregator"]
    assert invalid.error_type == "InvalidRecordError" and "score" in invalid.error
    assert invalid.raw == out_of_range
    wrong_key = letters[b"bad-k", "aggregator"]
    assert wrong_key.error_type == "InvalidRecordError" and "not its draft_id" in wrong_key.error
    assert env.stream.aggregator.entry("ok-elsewhere", 1) is None
    assert sorted(parked(values)) == sorted(expected)  # once each, not once per role
    # Taken out before any agent (streams._screen): no reviewer saw them, none reviewed the
    # misrouted draft (its reviews would come before those of the draft after it).
    assert env.stream.aggregator.parker.parked >= 5
    await env.reviews.wait_for(
        lambda vs: (
            len({v.reviewer for v in vs if getattr(v, "draft_id", "") == "ok-after-garbage"}) == 3
        )
    )
    assert not [v for v in env.reviews.values() if getattr(v, "draft_id", "") == "ok-elsewhere"]
    for name in ("validator", "critic", "urls"):
        assert env.stream.reviewers[name].skipped == 0, name
    assert env.stream.aggregator.entry("ok-x", 1) is None  # the invalid result changed nothing


async def test_a_slow_review_neither_stalls_its_partition_nor_gets_committed_past(env):
    critic_app = env.stream.app
    tp = TopicPartition(env.config.drafts_topic, 0)
    await env.submit("hold-1")
    await env.critic.wait_started("hold-1")
    slow_offset = await _offset_of(env, "hold-1")
    await env.submit("ok-fast-1")
    await env.submit("ok-fast-2")
    # Both later drafts are decided while hold-1 is still under review: no stall.
    await env.decision("ok-fast-1")
    await env.decision("ok-fast-2")
    assert env.critic.started["hold-1"] == 1 and "hold-1" not in env.critic.cancelled
    await critic_app.consumer.commit()
    assert await _committed(env, critic_app, tp) == slow_offset  # not past the slow draft
    env.critic.release("hold-1")
    await env.decision("hold-1")
    async with asyncio.timeout(30):
        while await _committed(env, critic_app, tp) <= slow_offset + 2:
            await critic_app.consumer.commit()
            await asyncio.sleep(0.1)


async def test_reviewer_spans_are_children_of_the_submission_and_linked_by_the_decision(env, spans):
    await env.submit("ok-trace")
    await env.decision("ok-trace")
    (submit,) = [s for s in spans.get_finished_spans() if s.name == "multiqa.submit"]

    def finished(name):
        return [
            s
            for s in spans.get_finished_spans()
            if s.name == name and s.attributes.get("multiqa.draft_id") == "ok-trace"
        ]

    async with asyncio.timeout(30):
        while not finished("multiqa.decide"):
            await asyncio.sleep(0.05)
    reviews = [s for s in spans.get_finished_spans() if s.name.startswith("multiqa.review ")]
    assert sorted(s.attributes["multiqa.reviewer"] for s in reviews) == [
        "critic",
        "urls",
        "validator",
    ]
    for span in reviews:
        assert span.context.trace_id == submit.context.trace_id
        assert span.parent.span_id == submit.context.span_id
    (decide,) = finished("multiqa.decide")
    assert decide.parent.span_id == submit.context.span_id
    assert {link.context.span_id for link in decide.links} == {s.context.span_id for s in reviews}
    (message,) = [
        m for m in env.decisions.messages if getattr(m.value, "draft_id", "") == "ok-trace"
    ]
    assert message.headers["traceparent"].decode().split("-")[2] == f"{decide.context.span_id:016x}"


# --- helpers -------------------------------------------------------------------------------------


def _result_of(value, draft_id: str, reviewer: str) -> bool:
    return (
        isinstance(value, ReviewerResult)
        and value.draft_id == draft_id
        and value.reviewer == reviewer
    )


def _skipped_already_decided(values, draft_id: str) -> bool:
    return any(
        isinstance(v, ReviewerResult)
        and v.draft_id == draft_id
        and v.reviewer == "critic"
        and v.status == ReviewStatus.SKIPPED
        and v.feedback == ALREADY_DECIDED
        for v in values
    )


async def _entry_when(env: Env, draft_id: str, predicate, version: int = 1):
    async with asyncio.timeout(30):
        while True:
            assert env.stream.aggregator is not None
            entry = env.stream.aggregator.entry(draft_id, version)
            if entry is not None and predicate(entry):
                return entry
            await asyncio.sleep(0.05)


async def _offset_of(env: Env, draft_id: str) -> int:
    reader = TopicReader(env.config.bootstrap_servers, env.config.drafts_topic, DraftSubmitted)
    await reader.start()
    try:
        await reader.wait_for(lambda vs: any(getattr(v, "draft_id", "") == draft_id for v in vs))
        return next(
            m.offset for m in reader.messages if getattr(m.value, "draft_id", "") == draft_id
        )
    finally:
        await reader.stop()


async def _committed(env: Env, app, tp: TopicPartition) -> int:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=env.config.bootstrap_servers,
        group_id=app.conf.id,
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        return (await consumer.committed(tp)) or 0
    finally:
        await consumer.stop()


async def test_a_result_the_codec_refuses_is_published_as_an_error_result(env):
    await env.submit("invalid-1")
    decision = await env.decision("invalid-1")
    (critic,) = [r for r in decision.reviews if r.reviewer == "critic"]
    assert critic.status == ReviewStatus.ERROR
    assert "invalid result" in critic.feedback and "score must be within 0-100" in critic.feedback

    def critic_results(values: list) -> list[ReviewerResult]:
        return [
            v
            for v in values
            if isinstance(v, ReviewerResult) and (v.draft_id, v.reviewer) == ("invalid-1", "critic")
        ]

    published = critic_results(await env.reviews.wait_for(critic_results))
    assert [r.status for r in published] == [ReviewStatus.ERROR]  # answered once, as an error
