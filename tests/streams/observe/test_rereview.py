"""`multiqa rereview` on drafts a real stream run stored (real broker, real validator, the real
critic against a fake Ollama on 127.0.0.1, the sinks): the model now scores some drafts lower,
and the re-review must flip exactly those decisions, write only the shadow tables, leave the
live tables and topics as they were, and work again after the drafts' topic is gone (Kafka's
retention passed). Bad input: an empty range, an unknown reviewer, an unreachable model: one
line, non-zero, nothing written."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from aiokafka import AIOKafkaConsumer, TopicPartition

from agents.base import Deps
from agents.registry import get_reviewer
from agents.settings import Settings
from schemas import DraftSubmitted
from streams.cli import main
from streams.client import DraftSubmitter
from streams.runtime.app import Runtime, create_app
from streams.runtime.db import create_pool
from streams.runtime.topics import ensure_topics
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.drafts import CLEAN, CRITICAL
from tests.helpers.http import Seen
from tests.helpers.ports import closed_port_url
from tests.streams.stream_helpers import delete_topics, stream_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIVE_MODEL, NEW_MODEL = "gemma3:27b", "llama3.2:3b"
LIVE_TABLES = ("qa_decisions", "qa_reviews", "cost_logs", "pipeline_versions", "qa_drafts")


def new_model_answer(seen: Seen) -> Any:
    """The new model finds the drafts marked 'Weakly' poor; the others good."""
    score = 20 if b"Weakly" in seen.body else 90
    return ollama_chat({"approved": score >= 70, "quality_score": score, "feedback": f"{score}"})


@dataclass
class History:
    config: Any
    pool: Any
    ollama: FakeOllama
    run: str
    weak: set[str]
    all_ids: set[str]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def history(kafka_bootstrap, module_dsn, tmp_path_factory) -> AsyncIterator[History]:
    ollama = FakeOllama().start()
    ollama.add_model(LIVE_MODEL, always=ollama_chat(
        {"approved": True, "quality_score": 85, "feedback": "good"}))  # fmt: skip
    ollama.add_model(NEW_MODEL, always=new_model_answer)
    settings = Settings(
        ollama_base_url=ollama.url,
        pipeline_critic_model=f"ollama/{LIVE_MODEL}",
        qa_fallback_critic_model=f"ollama/{LIVE_MODEL}",
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
    stream = create_app(
        config,
        # urls: required by default (these drafts have no links: not applicable)
        roster=[get_reviewer("validator"), get_reviewer("critic"), get_reviewer("urls")],
        runtime=runtime,
    )
    await stream.start()
    run = uuid.uuid4().hex[:8]
    drafts = [DraftSubmitted(f"keep-{run}-{i}", 1, "Kettles", CLEAN) for i in range(4)]
    drafts += [
        DraftSubmitted(f"weak-{run}-{i}", 1, "Kettles", CLEAN + "\nWeakly argued, it ends.")
        for i in range(2)
    ]
    drafts.append(DraftSubmitted(f"critical-{run}", 1, "Kettles", CRITICAL))
    async with DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic) as submitter:
        for draft in drafts:
            await submitter.submit(draft)
    ids = {d.draft_id for d in drafts}
    try:
        async with asyncio.timeout(90):
            while await pool.fetchval(
                "SELECT count(*) FROM qa_decisions WHERE draft_id = ANY($1)", list(ids)
            ) < len(ids) or await pool.fetchval(
                "SELECT count(*) FROM qa_reviews WHERE draft_id = ANY($1)", list(ids)
            ) < 2 * len(ids):
                await asyncio.sleep(0.2)
    finally:
        await stream.stop()
    live = await pool.fetch("SELECT draft_id, approved FROM qa_decisions")
    assert {r["draft_id"] for r in live if r["approved"]} == ids - {f"critical-{run}"}
    weak = {d for d in ids if d.startswith("weak-")}
    try:
        yield History(config, pool, ollama, run, weak, ids)
    finally:
        await pool.close()
        ollama.close()
        await delete_topics(config)


async def snapshot(pool: Any) -> dict[str, list[tuple]]:
    found = {}
    for table in LIVE_TABLES:
        rows = await pool.fetch(f"SELECT * FROM {table}")
        found[table] = sorted(tuple(str(v) for v in r.values()) for r in rows)
    return found


async def end_offsets(config: Any) -> dict[str, int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=config.bootstrap_servers)
    await consumer.start()
    try:
        tps = [TopicPartition(t, 0) for t in config.topic_names()]
        return {tp.topic: offset for tp, offset in (await consumer.end_offsets(tps)).items()}
    finally:
        await consumer.stop()


async def rereview(monkeypatch, capsys, h: History, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("MULTIQA_DATABASE_URL", h.config.database_url)
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["rereview", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def new_model_args(h: History) -> list[str]:
    return [
        "--set", f"ollama_base_url={h.ollama.url}",
        "--set", f"pipeline_critic_model=ollama/{NEW_MODEL}",
        "--set", f"qa_fallback_critic_model=ollama/{NEW_MODEL}",
    ]  # fmt: skip


async def test_rereview_flips_exactly_the_drafts_the_new_model_scores_lower(
    history: History, monkeypatch, capsys
) -> None:
    h = history
    before, offsets = await snapshot(h.pool), await end_offsets(h.config)
    code, out, err = await rereview(
        monkeypatch, capsys, h, "--since", "1h", "--reviewers", "critic", "--json",
        "--rate", "50", *new_model_args(h),
    )  # fmt: skip
    assert code == 0, err
    objects = [json.loads(line) for line in out.splitlines()]
    items = {o["draft_id"]: o for o in objects if o["type"] == "item"}
    (summary,) = [o for o in objects if o["type"] == "summary"]
    ours = {d: o for d, o in items.items() if h.run in d}
    assert set(ours) == h.all_ids
    assert {d for d, o in ours.items() if o["flipped"]} == h.weak
    for d in h.weak:
        assert ours[d]["approved_before"] is True and ours[d]["approved_after"] is False
        assert ours[d]["reviewer_deltas"]["critic"] == pytest.approx(20 - 85)
        assert ours[d]["score_delta"] < 0
    for d in h.all_ids - h.weak - {f"critical-{h.run}"}:
        assert ours[d]["reviewer_deltas"]["critic"] == pytest.approx(90 - 85)
    assert ours[f"critical-{h.run}"]["approved_after"] is False  # the validator's critical stands
    assert summary["flipped"] == 2 and summary["newly_rejected"] == 2
    assert f"rereview {len(items)}/{len(items)}" in err  # the progress bar's last line
    assert len(h.ollama.chats(NEW_MODEL)) == len(items)  # every draft asked the new model

    # Shadow tables only: the live tables and the topics are exactly as they were.
    assert await snapshot(h.pool) == before
    assert await end_offsets(h.config) == offsets
    run_id = summary["run_id"]
    flipped = await h.pool.fetch(
        "SELECT draft_id FROM rereview_decisions WHERE run_id = $1 AND flipped", uuid.UUID(run_id)
    )
    assert {r["draft_id"] for r in flipped} == h.weak
    results = await h.pool.fetchval(
        "SELECT count(*) FROM rereview_results WHERE run_id = $1 AND model = $2",
        uuid.UUID(run_id), f"ollama/{NEW_MODEL}",
    )  # fmt: skip
    assert results == len(items)

    # Text report: the same flips.
    code, out, err = await rereview(
        monkeypatch, capsys, h, "--since", "1h", "--reviewers", "critic", "--rate", "0",
        *new_model_args(h),
    )  # fmt: skip
    assert code == 0, err
    assert "2 newly rejected" in out
    for d in h.weak:
        assert f"{d} v1: approved" in out and "-> rejected" in out


async def test_rereview_still_works_after_the_topics_are_gone(
    history: History, monkeypatch, capsys
) -> None:
    h = history
    await delete_topics(h.config)  # Kafka's retention passed: no draft left on any topic
    code, out, err = await rereview(
        monkeypatch, capsys, h, "--since", "1h", "--reviewers", "critic", "--json",
        "--rate", "0", *new_model_args(h),
    )  # fmt: skip
    assert code == 0, err
    items = [json.loads(line) for line in out.splitlines()]
    assert {o["draft_id"] for o in items if o["type"] == "item" and o["flipped"]} >= h.weak


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--since", "2999-01-01", "--reviewers", "critic"], "no stored drafts first seen"),
        (["--since", "1h", "--reviewers", "critik"], "unknown reviewer(s) critik"),
        (["--since", "yesterday"], "--since 'yesterday': expected a date/time"),
        (["--since", "1h", "--reviewers", "critic", "--set", "no_such_setting=1"],
         "no_such_setting"),
        (["--since", "1h", "--reviewers", "critic", "--set", "ollama_base_url=UNREACHABLE"],
         "the critic model ollama/gemma3:27b is not usable"),
        # Found in the audit: a traceback (OverflowError), and bad numbers taken or lumped.
        (["--since", "99999999d"], "--since '99999999d' reaches back before the year 1"),
        (["--since", "1h", "--until", "2h"], "--until 2h is not after --since 1h"),
        (["--since", "1h", "--rate", "-1"], "--rate -1: give calls per second"),
        (["--since", "1h", "--rate", "nan"], "--rate nan: give calls per second"),
        (["--since", "1h", "--concurrency", "0"], "--concurrency 0: give 1 or more"),
        (["--since", "1h", "--show", "-1"], "--show -1: give 0 or more"),
    ],
)  # fmt: skip
async def test_rereview_bad_input_is_one_line_and_writes_nothing(
    history: History, monkeypatch, capsys, argv: list[str], message: str
) -> None:
    argv = [a.replace("UNREACHABLE", closed_port_url()) for a in argv]
    runs = await history.pool.fetchval("SELECT count(*) FROM rereview_runs")
    before = await snapshot(history.pool)
    code, out, err = await rereview(monkeypatch, capsys, history, *argv)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("multiqa rereview: error: "), err
    assert message in lines[0]
    assert out == ""
    assert await history.pool.fetchval("SELECT count(*) FROM rereview_runs") == runs
    assert await snapshot(history.pool) == before


class FailingLater(FakeOllama):
    """Lists its models (the preflight passes), then answers every chat with a server error, and
    after `healthy` listings stops listing altogether (the server went away mid-run)."""

    healthy: int = 10**6

    def respond(self, seen: Seen) -> Any:
        from tests.agents.fakes import ollama_error

        if seen.path == "/api/tags" and len(self.requests_to("/api/tags")) > self.healthy:
            return ollama_error(503, "shutting down")
        if seen.path == "/api/chat":
            return ollama_error(500, "model crashed")
        return super().respond(seen)


async def test_rereview_a_model_failing_mid_run(history: History, monkeypatch, capsys) -> None:
    """A model that errors on a draft: that draft is reported, not counted as a flip. A model
    that stops answering mid-run: one line, non-zero, nothing written."""
    h = history
    for healthy, expect_ok in ((10**6, True), (1, False)):
        server = FailingLater()
        server.healthy = healthy
        server.add_model(NEW_MODEL)
        with server:
            runs = await h.pool.fetchval("SELECT count(*) FROM rereview_runs")
            args = [a.replace(h.ollama.url, server.url) for a in new_model_args(h)]
            code, out, err = await rereview(
                monkeypatch, capsys, h, "--since", "1h", "--reviewers", "critic", "--json",
                "--rate", "0", "--set", "llm_health_cache_seconds=0", *args,
            )  # fmt: skip
        after = await h.pool.fetchval("SELECT count(*) FROM rereview_runs")
        if expect_ok:
            assert code == 0, err
            objects = [json.loads(line) for line in out.splitlines()]
            items = [o for o in objects if o["type"] == "item"]
            assert items and not any(o["flipped"] for o in items)
            assert all(
                o["problem"].startswith("not re-decided: no verdict from critic") for o in items
            )
            assert after == runs + 1
        else:
            lines = err.strip().splitlines()
            assert code == 1 and out == "", err
            assert lines[-1].startswith("multiqa rereview: error: critic could not reach its model")
            assert lines[-1].endswith("nothing was written")
            assert after == runs
