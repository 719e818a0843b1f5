"""A worker's operations endpoint on a real stream: the real broker, a database of our own, the
real validator, the real critic talking to a fake Ollama on 127.0.0.1 (its wire protocol), the
real URL verifier fetching a local site through the URL guard, and the sinks.

Known drafts go through; then /metrics must count exactly them (decisions by outcome and flag,
one result per reviewer and draft, histograms with observations, model tokens as the fake model
reported them, sink rows), /readyz must have said "not ready" until the groups joined, the trace
of one draft must hold the model call, the HTTP fetch and the sink writes as child spans, and the
decision must carry that trace's id, in the event and in qa_decisions."""

# OpenTelemetry types a span's `attributes` Optional; the SDK's finished spans always hold a
# mapping, and these tests index it directly.
# mypy: disable-error-code="index,union-attr"

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from agents.base import Deps, ReviewerSpec
from agents.registry import get_reviewer
from agents.settings import Settings
from schemas import DraftSubmitted, Provider, QADecision, ReviewerResult
from streams.client import DraftSubmitter
from streams.runtime import tracing
from streams.runtime.app import MultiQA, Runtime, create_app
from streams.runtime.db import create_pool
from streams.runtime.observe import LogContextFilter, WorkerOps
from streams.runtime.topics import ensure_topics
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.drafts import CLEAN, CRITICAL
from tests.helpers.http import Reply, StaticSite
from tests.streams.observe.observe_helpers import metric, probe, scrape
from tests.streams.stream_helpers import (
    TopicReader,
    delete_topics,
    send_raw,
    span_exporter,
    stream_config,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOKENS_IN, TOKENS_OUT = 321, 45
SECRET = "token=s3cr3t-do-not-export"


def noisy_review_log() -> logging.Logger:
    return logging.getLogger("multiqa.tests.noisy")


async def noisy(draft: DraftSubmitted, settings: object, deps: object) -> ReviewerResult:
    """A free reviewer that logs while it reviews (what the log context is checked on)."""
    noisy_review_log().warning("noisy reviewer looked at the draft")
    return ReviewerResult("noisy", True, 90.0, "fine", Provider.PROGRAMMATIC)


@dataclass
class Env:
    stream: MultiQA
    ops: WorkerOps
    submitter: DraftSubmitter
    decisions: TopicReader
    pool: Any
    site: StaticSite
    ollama: FakeOllama
    not_ready_before_start: tuple[int, dict[str, Any]]

    @property
    def url(self) -> str:
        return self.ops.server.url

    def link(self, path: str) -> str:
        return f"{self.site.url}{path}"

    async def decided(self, ids: set[str]) -> dict[str, QADecision]:
        values = await self.decisions.wait_for(
            lambda vs: ids <= {v.draft_id for v in vs if isinstance(v, QADecision)}, timeout=90
        )
        return {v.draft_id: v for v in values if isinstance(v, QADecision) and v.draft_id in ids}

    async def rows(self, table: str, ids: set[str]) -> list[Any]:
        return list(
            await self.pool.fetch(f"SELECT * FROM {table} WHERE draft_id = ANY($1)", list(ids))
        )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(kafka_bootstrap, module_dsn, tmp_path_factory) -> AsyncIterator[Env]:
    span_exporter()
    ollama = FakeOllama().start()
    answer = {"approved": True, "quality_score": 88, "feedback": "clear and useful"}
    ollama.add_model(
        "gemma3:27b",
        always=ollama_chat(answer, prompt_tokens=TOKENS_IN, output_tokens=TOKENS_OUT),
    )
    site = StaticSite(pages={"/guide": Reply(200, b"<p>guide</p>", "text/html")}).start()
    settings = Settings(
        ollama_base_url=ollama.url,
        pipeline_critic_model="ollama/gemma3:27b",
        qa_fallback_critic_model="ollama/gemma3:27b",
        # One slow health check under a loaded machine marks Ollama down for every draft of the
        # module's shared worker; the fake answers in milliseconds when the loop is free.
        ollama_health_timeout_seconds=15.0,
        qa_critic_timeout_seconds=10.0,
        qa_url_allowlist="127.0.0.1",
        qa_aggregate_timeout_seconds=60.0,
    )

    async def current() -> Settings:
        return settings

    config = stream_config(
        kafka_bootstrap, str(tmp_path_factory.mktemp("faust")), database_url=module_dsn
    )
    await ensure_topics(config)
    pool = await create_pool(module_dsn)
    runtime = Runtime(config, settings=current, deps=Deps(pool=pool), pool=pool)
    roster = [
        get_reviewer("validator"),
        get_reviewer("critic"),
        get_reviewer("urls"),
        ReviewerSpec("noisy", Provider.PROGRAMMATIC, noisy, lambda _s: True),
    ]
    stream = create_app(config, roster=roster, runtime=runtime)
    ops = WorkerOps(config, port=0)
    ops.lag.interval = 0.5
    await ops.start()
    ops.attach(stream, runtime)
    # Bound, the stream built but its apps not started: the groups have not joined.
    before = await probe(ops.server.url, "/readyz")
    await stream.start()
    decisions = await TopicReader(kafka_bootstrap, config.decisions_topic, QADecision).start()
    submitter = DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic)
    await submitter.start()
    env = Env(stream, ops, submitter, decisions, pool, site, ollama, before)
    try:
        async with asyncio.timeout(90):
            while (await probe(env.url, "/readyz"))[0] != 200:
                await asyncio.sleep(0.3)
        yield env
    finally:
        await submitter.stop()
        await decisions.stop()
        await stream.stop()
        await ops.stop()
        await pool.close()
        site.close()
        ollama.close()
        await delete_topics(config)


async def test_readyz_says_not_ready_until_the_groups_joined_then_ready(env: Env) -> None:
    status, body = env.not_ready_before_start
    assert status == 503 and body["status"] == "not ready"
    groups = body["checks"]["consumer_groups"]
    assert not groups["ok"] and "not joined" in groups["detail"]
    assert body["checks"]["broker"]["ok"] and body["checks"]["database"]["ok"]

    status, body = await probe(env.url, "/readyz")
    assert status == 200, body
    assert all(check["ok"] for check in body["checks"].values())
    assert "joined" in body["checks"]["consumer_groups"]["detail"]
    assert "migrations applied" in body["checks"]["database"]["detail"]
    status, body = await probe(env.url, "/healthz")
    assert status == 200 and body["status"] == "alive"


async def test_metrics_count_exactly_the_drafts_of_a_run(env: Env) -> None:
    before = await scrape(env.url)
    run = uuid.uuid4().hex[:8]
    live = CLEAN + f"\n\nSee [the guide]({env.link('/guide')})."
    dead = CLEAN + f"\n\nSee [the old page]({env.link('/retired')})."
    drafts = {
        **{f"clean-{run}-{i}": live for i in range(3)},
        **{f"dead-{run}-{i}": dead for i in range(2)},
        **{f"critical-{run}-{i}": CRITICAL for i in range(2)},
    }
    for draft_id, content in drafts.items():
        await env.submitter.submit(DraftSubmitted(draft_id, 1, "Kettles", content))
    decided = await env.decided(set(drafts))
    assert {d for d, v in decided.items() if v.approved} == {d for d in drafts if "clean" in d}
    assert {d for d, v in decided.items() if v.short_circuited} == {
        d for d in drafts if "critical" in d
    }
    # Wait for the sinks too (their write metrics are part of the run).
    async with asyncio.timeout(60):
        while len(await env.rows("qa_decisions", set(drafts))) < len(drafts) or len(
            await env.rows("qa_reviews", set(drafts))
        ) < 4 * len(drafts):
            await asyncio.sleep(0.2)
    await asyncio.sleep(1.0)  # the lag poller's next round (every 0.5 s here)
    after = await scrape(env.url)

    def delta(name: str, **labels: str) -> float:
        return metric(after, name, **labels) - metric(before, name, **labels)

    assert delta("multiqa_decisions_total") == 7
    assert delta("multiqa_decisions_total", outcome="approved") == 3
    assert delta("multiqa_decisions_total", outcome="rejected") == 4
    assert delta("multiqa_decision_flags_total", flag="short_circuit") == 2
    assert delta("multiqa_decision_flags_total", flag="short_circuit", outcome="approved") == 0
    assert delta("multiqa_aggregator_deadline_misses_total") == 0
    for reviewer in ("validator", "critic", "urls", "noisy"):
        # Exactly one result per reviewer and draft, and a latency observation for each.
        assert delta("multiqa_reviewer_results_total", reviewer=reviewer) == 7, reviewer
        assert delta("multiqa_reviewer_duration_seconds_count", reviewer=reviewer) == 7
        assert delta("multiqa_reviewer_duration_seconds_sum", reviewer=reviewer) >= 0
    assert delta("multiqa_reviewer_results_total", reviewer="validator", status="ok") == 7
    assert delta("multiqa_reviewer_results_total", reviewer="urls", status="ok", reason="ok") == 5
    # the critical drafts have no links: nothing for urls to check
    assert (
        delta(
            "multiqa_reviewer_results_total",
            reviewer="urls",
            status="skipped",
            reason="not_applicable",
        )
        == 2
    )
    critic_ok = delta("multiqa_reviewer_results_total", reviewer="critic", status="ok")
    critic_cancelled = delta(
        "multiqa_reviewer_results_total", reviewer="critic", reason="cancelled"
    )
    assert critic_ok >= 5 and critic_ok + critic_cancelled == 7  # short-circuits may cancel it
    model = "ollama/gemma3:27b"
    tokens_in = delta("multiqa_model_tokens_total", reviewer="critic", model=model, direction="in")
    assert tokens_in == TOKENS_IN * critic_ok
    tokens_out = delta("multiqa_model_tokens_total", model=model, direction="out")
    assert tokens_out == TOKENS_OUT * critic_ok
    assert delta("multiqa_model_kwh_total", reviewer="critic", model=model) > 0
    # The fake Ollama honours the schema: every answer read as structured output.
    assert delta("multiqa_llm_answers_total", provider="ollama", how="structured") == critic_ok
    assert delta("multiqa_llm_answers_total", how="parser") == 0
    assert delta("multiqa_model_parser_fallbacks_total") == 0
    # The validator's critical finding of each short-circuited draft, counted by rule.
    assert delta("multiqa_validator_findings_total", severity="critical") >= 2
    for kind in ("decisions", "reviews", "drafts"):
        assert delta("multiqa_sink_rows_total", kind=kind, result="new") == (
            7 * 4 if kind == "reviews" else 7
        ), kind
        assert delta("multiqa_sink_write_seconds_count", kind=kind) >= 1, kind
    assert metric(after, "multiqa_aggregator_drafts_in_flight") == 0
    # Lag per group and partition of this worker's groups; everything is consumed by now.
    groups = {app.conf.id for app in env.stream.apps.values()}
    lag_groups = {
        dict(labels)["group"] for (name, labels) in after if name == "multiqa_consumer_lag"
    }
    assert groups <= lag_groups
    # The worker's one group reads every topic of the run (streams.runtime._layout): at most what
    # was not yet committed at the last poll, a dozen messages per draft at most.
    lag = metric(after, "multiqa_consumer_lag", group=env.stream.group_id)
    assert lag <= 7 * 12

    # The run's drafts are stored with their content (history beyond Kafka's retention).
    stored = {r["draft_id"]: r for r in await env.rows("qa_drafts", set(drafts))}
    assert set(stored) == set(drafts)
    assert all(stored[d]["content"] == c for d, c in drafts.items())


async def test_consumer_lag_is_of_the_topics_the_group_consumes_and_drains(env: Env) -> None:
    """Found in the audit: the aggregator table's changelog was reported as lag (the group reads
    it to recover the table but never commits it), so the gauge grew with every draft for ever
    and an alert on lag would never clear. Lag is of the topics the worker consumes; once every
    draft is decided and stored it drains to 0."""
    run = uuid.uuid4().hex[:8]
    ids = {f"lag-{run}-{i}" for i in range(3)}
    for draft_id in sorted(ids):
        await env.submitter.submit(DraftSubmitted(draft_id, 1, "Kettles", CRITICAL))
    await env.decided(ids)
    consumed = set(env.stream.config.topic_names())
    async with asyncio.timeout(60):
        while True:
            await asyncio.sleep(0.5)
            samples = await scrape(env.url)
            lag = [
                (dict(labels)["topic"], value)
                for (name, labels), value in samples.items()
                if name == "multiqa_consumer_lag"
            ]
            topics = {topic for topic, _ in lag}
            assert topics and topics <= consumed, topics - consumed
            stored = len(await env.rows("qa_decisions", ids)) == len(ids)
            if stored and sum(value for _, value in lag) == 0:
                break


async def test_a_draft_trace_holds_the_model_call_the_fetch_and_the_sink_writes(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    exporter = span_exporter()
    capture = LogContextFilter()
    caplog.handler.addFilter(capture)
    caplog.set_level(logging.WARNING, logger="multiqa.tests.noisy")
    draft_id = f"traced-{uuid.uuid4().hex[:8]}"
    link = env.link(f"/guide?{SECRET}")
    submission = await env.submitter.submit(
        DraftSubmitted(draft_id, 1, "Kettles", CLEAN + f"\n\nSee [the guide]({link}).")
    )
    trace_id = tracing.trace_id_of(submission.traceparent)
    decision = (await env.decided({draft_id}))[draft_id]
    assert decision.approved and decision.trace_id == trace_id

    async with asyncio.timeout(30):
        while True:
            rows = await env.rows("qa_decisions", {draft_id})
            spans = [
                s
                for s in exporter.get_finished_spans()
                if format(s.context.trace_id, "032x") == trace_id
            ]
            names = {s.name for s in spans}
            if rows and {"multiqa.sink decisions", "multiqa.sink reviews"} <= names:
                break
            await asyncio.sleep(0.2)
    assert rows[0]["trace_id"] == trace_id
    by_id = {s.context.span_id: s for s in spans}

    def parent_name(span: Any) -> str:
        parent = span.parent
        return by_id[parent.span_id].name if parent and parent.span_id in by_id else ""

    (llm,) = [s for s in spans if s.name == "multiqa.llm chat"]
    assert parent_name(llm) == "multiqa.review critic"
    assert llm.attributes["gen_ai.request.model"] == "gemma3:27b"
    assert llm.attributes["gen_ai.system"] == "ollama"
    assert llm.attributes["multiqa.llm.status"] == "ok"
    assert llm.attributes["gen_ai.usage.input_tokens"] == TOKENS_IN
    assert llm.attributes["gen_ai.usage.output_tokens"] == TOKENS_OUT

    (http,) = [s for s in spans if s.name == "multiqa.http check"]
    assert parent_name(http) == "multiqa.review urls"
    assert http.attributes["server.address"] == "127.0.0.1"
    assert http.attributes["http.response.status_code"] == 200
    assert http.attributes["multiqa.http.outcome"] == "ok"
    exported = " ".join(str(v) for s in spans for v in (s.attributes or {}).values())
    assert "s3cr3t" not in exported  # the link's query never leaves in an attribute

    for kind in ("decisions", "reviews", "drafts"):
        sink = [s for s in spans if s.name == f"multiqa.sink {kind}"]
        assert sink, kind
        assert all(s.attributes["db.system"] == "postgresql" for s in sink)
    # One reviews-sink span per result (a batch write appears in each draft's trace).
    assert len([s for s in spans if s.name == "multiqa.sink reviews"]) == 4

    # The noisy reviewer's log line carries the draft and its review span.
    (record,) = [r for r in caplog.records if r.name == "multiqa.tests.noisy" and
                 getattr(r, "draft_id", "") == f"{draft_id} v1"]  # fmt: skip
    assert record.__dict__["trace_id"] == trace_id
    (noisy_span,) = [s for s in spans if s.name == "multiqa.review noisy"]
    assert record.__dict__["span_id"] == format(noisy_span.context.span_id, "016x")


async def test_a_dead_letter_is_counted_and_traced(env: Env) -> None:
    before = await scrape(env.url)
    exporter = span_exporter()
    config = env.stream.config
    trace_id = uuid.uuid4().hex
    traceparent = f"00-{trace_id}-{uuid.uuid4().hex[:16]}-01"
    await send_raw(
        config.bootstrap_servers,
        config.drafts_topic,
        b"not avro at all",
        key=b"garbage",
        headers=[("traceparent", traceparent.encode())],
    )
    name, topic = "multiqa_dead_letters_total", config.drafts_topic
    async with asyncio.timeout(30):
        while True:
            after = await scrape(env.url)
            if metric(after, name, source_topic=topic) > metric(before, name, source_topic=topic):
                break
            await asyncio.sleep(0.2)
    reasons = {
        dict(labels)["reason"]
        for (sample, labels) in after
        if sample == name and dict(labels)["source_topic"] == topic
    }
    assert reasons == {"BadMagicError"}
    spans = [
        s
        for s in exporter.get_finished_spans()
        if s.name == "multiqa.dead_letter" and format(s.context.trace_id, "032x") == trace_id
    ]
    assert spans and all(s.attributes["multiqa.error_type"] == "BadMagicError" for s in spans)
