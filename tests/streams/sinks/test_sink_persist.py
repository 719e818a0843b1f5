"""Idempotent persistence of decisions, feedback, reviews, costs, dead letters and audit events,
on the real PostgreSQL server."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import pytest

from schemas.records import DeadLetter, Finding, Severity, Span
from streams.runtime.db import create_pool, migrate
from streams.runtime.sinks import (
    Backoff,
    Sink,
    SinkError,
    persist_dead_letter,
    persist_decision,
    persist_review,
)

pytestmark = pytest.mark.postgres


async def count(pool: Any, sql: str, *args: Any) -> int:
    return int(await pool.fetchval(sql, *args))


async def test_same_decision_twice_leaves_one_row_and_its_feedback(sink_pool, make_decision):
    decision = make_decision("d-1", 1)

    assert await persist_decision(sink_pool, decision) is True
    assert await persist_decision(sink_pool, decision) is False

    rows = await sink_pool.fetch("SELECT * FROM qa_decisions")
    assert len(rows) == 1
    row = rows[0]
    assert str(row["decision_id"]) == decision.decision_id
    assert (row["draft_id"], row["version"], row["task_id"]) == ("d-1", 1, "task-1")
    assert row["approved"] is True and row["final_score"] == 82.5
    assert row["feedback_text"] == decision.feedback_text
    assert row["decided_at"] == decision.decided_at
    assert row["settings_version"] == "abc123"
    assert [r["reviewer"] for r in row["reviews"]] == ["validator", "critic"]
    assert row["reviews"][1]["status"] == "skipped"

    version = await sink_pool.fetchrow("SELECT * FROM pipeline_versions")
    assert (version["draft_id"], version["version"], version["task_id"]) == ("d-1", 1, "task-1")
    assert version["qa_feedback"] == decision.feedback_text
    assert (version["qa_score"], version["qa_approved"]) == (82.5, True)
    assert str(version["decision_id"]) == decision.decision_id

    task = await sink_pool.fetchrow("SELECT * FROM pipeline_tasks WHERE task_id = 'task-1'")
    assert task["qa_feedback"] == decision.feedback_text
    assert (task["latest_draft_id"], task["latest_version"]) == ("d-1", 1)
    assert (task["qa_score"], task["qa_approved"]) == (82.5, True)


async def test_first_decision_of_a_version_stands(sink_pool, make_decision):
    first = make_decision("d-1", 1, approved=False, final_score=40.0, feedback_text="REJECTED")
    other = make_decision(
        "d-1", 1, decision_id=str(uuid.uuid4()), approved=True, feedback_text="APPROVED"
    )
    assert await persist_decision(sink_pool, first) is True
    assert await persist_decision(sink_pool, other) is False

    assert await count(sink_pool, "SELECT count(*) FROM qa_decisions") == 1
    assert await sink_pool.fetchval("SELECT qa_feedback FROM pipeline_versions") == "REJECTED"
    assert await sink_pool.fetchval("SELECT qa_feedback FROM pipeline_tasks") == "REJECTED"


async def test_resubmitted_version_is_a_new_row_and_the_task_shows_the_newest(
    sink_pool, make_decision
):
    v1 = make_decision("d-1", 1, approved=False, final_score=55.0, feedback_text="v1 rejected")
    v2 = make_decision("d-1", 2, approved=True, final_score=88.0, feedback_text="v2 approved")
    # v2's decision lands before v1's (re-delivery after a restart): the task keeps v2.
    assert await persist_decision(sink_pool, v2)
    assert await persist_decision(sink_pool, v1)

    rows = await sink_pool.fetch(
        "SELECT version, qa_feedback FROM pipeline_versions ORDER BY version"
    )
    assert [(r["version"], r["qa_feedback"]) for r in rows] == [
        (1, "v1 rejected"),
        (2, "v2 approved"),
    ]
    task = await sink_pool.fetchrow("SELECT * FROM pipeline_tasks WHERE task_id = 'task-1'")
    assert (task["latest_version"], task["qa_feedback"], task["qa_approved"]) == (
        2,
        "v2 approved",
        True,
    )
    assert await count(sink_pool, "SELECT count(*) FROM qa_decisions") == 2


async def test_decision_without_task_writes_no_task_row(sink_pool, make_decision):
    assert await persist_decision(sink_pool, make_decision("d-9", 1, task_id=None))
    assert await count(sink_pool, "SELECT count(*) FROM pipeline_tasks") == 0
    assert await count(sink_pool, "SELECT count(*) FROM pipeline_versions") == 1


async def test_timed_out_decision_records_one_audit_event(sink_pool, make_decision):
    decision = make_decision("d-1", 1, timed_out=True, missing_reviewers=("critic", "urls"))
    await persist_decision(sink_pool, decision)
    await persist_decision(sink_pool, decision)

    events = await sink_pool.fetch("SELECT event_type, payload FROM audit_log")
    assert len(events) == 1
    assert events[0]["event_type"] == "aggregation_timeout"
    assert events[0]["payload"]["missing_reviewers"] == ["critic", "urls"]
    assert events[0]["payload"]["draft_id"] == "d-1"
    row = await sink_pool.fetchrow("SELECT timed_out, missing_reviewers FROM qa_decisions")
    assert row["timed_out"] is True and row["missing_reviewers"] == ["critic", "urls"]


async def test_same_review_twice_leaves_one_review_and_one_cost(sink_pool, make_review):
    review = make_review("d-1", 1, "validator")
    assert await persist_review(sink_pool, review) is True
    assert await persist_review(sink_pool, review) is False

    rows = await sink_pool.fetch("SELECT * FROM qa_reviews")
    assert len(rows) == 1
    row = rows[0]
    assert (row["reviewer"], row["provider"], row["status"]) == ("validator", "programmatic", "ok")
    assert (row["score"], row["approved"], row["feedback"]) == (61.0, False, "needs sources")
    assert row["findings"] == [
        {
            "code": "fabricated_statistic",
            "severity": "critical",
            "message": "unsourced statistic",
            "span": {"start": 10, "end": 28, "text": "a 47% increase"},
        },
        {"code": "filler_intro", "severity": "warning", "message": "filler intro", "span": None},
    ]
    costs = await sink_pool.fetch("SELECT * FROM cost_logs")
    assert len(costs) == 1
    assert (costs[0]["model"], costs[0]["tokens_in"], costs[0]["tokens_out"]) == (
        "gemma3:27b",
        120,
        40,
    )
    assert (costs[0]["usd"], costs[0]["duration_ms"]) == (0.0012, 850)


async def test_a_changed_duplicate_result_does_not_replace_the_first(sink_pool, make_review):
    first = make_review("d-1", 1, "urls", feedback="1 dead link")
    again = dataclasses.replace(first, feedback="0 dead links", score=100.0)
    await persist_review(sink_pool, first)
    assert await persist_review(sink_pool, again) is False
    assert await sink_pool.fetchval("SELECT feedback FROM qa_reviews") == "1 dead link"


async def test_late_review_after_the_decision_is_recorded_and_changes_nothing(
    sink_pool, make_decision, make_review
):
    decision = make_decision("d-1", 1, missing_reviewers=("urls",), timed_out=True)
    await persist_decision(sink_pool, decision)
    before = await sink_pool.fetchrow("SELECT * FROM qa_decisions")

    late = make_review("d-1", 1, "urls", score=0.0, veto="2 dead links")
    assert await persist_review(sink_pool, late) is True

    assert await sink_pool.fetchval("SELECT veto FROM qa_reviews WHERE reviewer = 'urls'") == (
        "2 dead links"
    )
    after = await sink_pool.fetchrow("SELECT * FROM qa_decisions")
    assert dict(after) == dict(before)
    assert await sink_pool.fetchval("SELECT qa_feedback FROM pipeline_versions") == (
        decision.feedback_text
    )


async def test_untrusted_text_with_nul_and_lone_surrogates_is_stored(
    sink_pool, make_decision, make_review
):
    nasty = "quote \x00 from the draft \udcff end"
    review = make_review(
        "d-\x00x",
        1,
        feedback=nasty,
        findings=(Finding("leak\x00", Severity.WARNING, nasty, Span(0, 3, "\x00\x00\x00")),),
    )
    await persist_review(sink_pool, review)
    await persist_decision(sink_pool, make_decision("d-1", 1, feedback_text=nasty, summary=nasty))

    stored = await sink_pool.fetchrow("SELECT draft_id, feedback, findings FROM qa_reviews")
    assert stored["draft_id"] == "d-\ufffdx"
    assert stored["feedback"] == "quote \ufffd from the draft ? end"
    assert stored["findings"][0]["span"]["text"] == "\ufffd\ufffd\ufffd"
    assert "\x00" not in await sink_pool.fetchval("SELECT feedback_text FROM qa_decisions")


async def test_dead_letter_is_audited_once_per_consumer_and_offset(sink_pool):
    dead = DeadLetter(
        source_topic="qa.drafts",
        source_partition=2,
        source_offset=41,
        error_type="SchemaMismatch",
        error="unknown fingerprint 0x1234 at offset 2",
        raw=b"\xc3\x01garbage" * 500,
        consumer="validator",
        key=b"d-7",
    )
    assert await persist_dead_letter(sink_pool, dead) is True
    assert await persist_dead_letter(sink_pool, dead) is False
    # The same bad message, failed by another consumer, is its own event.
    assert await persist_dead_letter(sink_pool, dataclasses.replace(dead, consumer="critic"))

    rows = await sink_pool.fetch(
        "SELECT payload FROM audit_log WHERE event_type = 'dead_letter' ORDER BY id"
    )
    assert len(rows) == 2
    payload = rows[0]["payload"]
    assert (payload["source_topic"], payload["source_partition"], payload["source_offset"]) == (
        "qa.drafts",
        2,
        41,
    )
    assert payload["error_type"] == "SchemaMismatch" and payload["key"] == "d-7"
    assert payload["raw_size"] == len(dead.raw)


async def test_sink_counts_new_rows_and_redeliveries(sink_pool, make_decision, make_review):
    sink = Sink(sink_pool)
    assert await sink.write_decision(make_decision("d-1", 1))
    assert not await sink.write_decision(make_decision("d-1", 1))
    assert await sink.write_review(make_review("d-1", 1, "critic"))
    assert await sink.write_audit("critic_fallback", {"model": "x"}, dedupe_key="k1")
    assert not await sink.write_audit("critic_fallback", {"model": "x"}, dedupe_key="k1")
    assert (sink.written, sink.duplicates, sink.retries) == (3, 2, 0)


async def test_a_record_the_database_refuses_raises_sink_error_at_once(sink_pool, make_decision):
    sink = Sink(sink_pool, backoff=Backoff(initial=0.01, cap=0.01))
    bad = make_decision("d-1", 1, decision_id="not-a-uuid")
    with pytest.raises(SinkError, match="decision d-1 v1"):
        await sink.write_decision(bad)
    assert sink.retries == 0
    assert await count(sink_pool, "SELECT count(*) FROM qa_decisions") == 0


async def test_writes_wait_for_migrations_then_land(pg_dsn, make_decision, caplog):
    """A worker started before `multiqa db migrate` waits for the tables instead of failing
    (pg_dsn: a fresh database, nothing migrated)."""
    pool = await create_pool(pg_dsn)
    try:
        sink = Sink(pool, backoff=Backoff(initial=0.02, cap=0.1))
        write = asyncio.create_task(sink.write_decision(make_decision("d-1", 1)))
        while sink.retries < 2:
            await asyncio.sleep(0.02)
        assert not write.done()
        assert "run `multiqa db migrate`" in caplog.text

        await migrate(pool)
        assert await write is True
        assert await count(pool, "SELECT count(*) FROM qa_decisions") == 1
    finally:
        await pool.close()


async def test_batches_skip_keys_already_recorded_or_repeated_in_the_batch(
    sink_pool, make_decision, make_review
):
    from streams.runtime.sinks import persist_decisions, persist_reviews

    await persist_review(sink_pool, make_review("d-1", 1, "validator", feedback="first"))
    batch = [
        make_review("d-1", 1, "validator", feedback="again"),  # already recorded
        make_review("d-1", 1, "critic", feedback="critic one"),
        make_review("d-1", 1, "critic", feedback="critic two"),  # repeated in the batch
        make_review("d-2", 1, "validator"),
    ]
    assert await persist_reviews(sink_pool, batch) == 2
    rows = await sink_pool.fetch(
        "SELECT draft_id, reviewer, feedback FROM qa_reviews ORDER BY 1, 2"
    )
    assert [tuple(r) for r in rows] == [
        ("d-1", "critic", "critic one"),
        ("d-1", "validator", "first"),
        ("d-2", "validator", "needs sources"),
    ]
    assert await count(sink_pool, "SELECT count(*) FROM cost_logs") == 3

    decisions = [make_decision("d-1", 1), make_decision("d-2", 1), make_decision("d-1", 1)]
    assert await persist_decisions(sink_pool, decisions) == 2
    assert await persist_decisions(sink_pool, decisions) == 0
    assert await count(sink_pool, "SELECT count(*) FROM pipeline_versions") == 2


async def test_a_batch_leaves_the_rows_one_decision_at_a_time_leaves(sink_pool, make_decision):
    """One statement per batch (streams.runtime.sinks._persist) must give what writing the
    decisions one by one gives: first decision of a version stands, a task shows its newest
    version whatever the order in the batch, one audit event per timed-out decision."""
    from streams.runtime.sinks import persist_decisions

    recorded = make_decision("d-0", 1, feedback_text="recorded before")
    await persist_decision(sink_pool, recorded)
    v2 = make_decision("d-1", 2, feedback_text="v2", timed_out=True, missing_reviewers=("urls",))
    v1 = make_decision("d-1", 1, feedback_text="v1")
    rival = make_decision("d-1", 1, decision_id=str(uuid.uuid4()), feedback_text="rival v1")
    other_task = make_decision("d-7", 1, task_id="task-7", feedback_text="t7", vetoes=("x",))
    batch = [dataclasses.replace(recorded, feedback_text="changed"), v2, v1, rival, v2, other_task]

    assert await persist_decisions(sink_pool, batch) == 3  # v2, v1, other_task

    rows = await sink_pool.fetch(
        "SELECT draft_id, version, feedback_text, vetoes FROM qa_decisions ORDER BY 1, 2"
    )
    assert [tuple(r) for r in rows] == [
        ("d-0", 1, "recorded before", []),
        ("d-1", 1, "v1", []),
        ("d-1", 2, "v2", []),
        ("d-7", 1, "t7", ["x"]),
    ]
    versions = await sink_pool.fetch(
        "SELECT draft_id, version, qa_feedback FROM pipeline_versions ORDER BY 1, 2"
    )
    assert [tuple(r) for r in versions] == [
        ("d-0", 1, "recorded before"),
        ("d-1", 1, "v1"),
        ("d-1", 2, "v2"),
        ("d-7", 1, "t7"),
    ]
    # task-1 saw d-0 v1 (before), then d-1 v2, then d-1 v1 (older: kept v2).
    tasks = await sink_pool.fetch(
        "SELECT task_id, latest_draft_id, latest_version, qa_feedback FROM pipeline_tasks "
        "ORDER BY 1"
    )
    assert [tuple(t) for t in tasks] == [("task-1", "d-1", 2, "v2"), ("task-7", "d-7", 1, "t7")]
    events = await sink_pool.fetch("SELECT payload FROM audit_log")
    assert [(e["payload"]["draft_id"], e["payload"]["version"]) for e in events] == [("d-1", 2)]
    assert events[0]["payload"]["missing_reviewers"] == ["urls"]
    assert await persist_decisions(sink_pool, batch) == 0  # a re-delivered batch changes nothing
    assert await count(sink_pool, "SELECT count(*) FROM audit_log") == 1


async def test_a_batch_without_tasks_or_timeouts_records_each_decision_once(
    sink_pool, make_decision
):
    from streams.runtime.sinks import persist_decisions

    decisions = [make_decision(f"d-{n}", 1, task_id=None) for n in range(3)]
    assert await persist_decisions(sink_pool, [*decisions, decisions[0]]) == 3
    assert await count(sink_pool, "SELECT count(*) FROM pipeline_versions") == 3
    assert await count(sink_pool, "SELECT count(*) FROM pipeline_tasks") == 0
