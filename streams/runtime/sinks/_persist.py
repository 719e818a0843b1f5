"""One idempotent write per event kind: decisions, reviewer results (+ their cost), dead letters,
audit events.

Every function here can be re-run with the same event any number of times and leaves exactly the
rows one run leaves: Kafka delivers at least once, so a sink that is not idempotent duplicates.
The keys that make that so are the tables' own: qa_decisions (decision_id) and (draft_id, version),
qa_reviews and cost_logs (draft_id, version, reviewer), audit_log dedupe_key.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from agents.audit import storable_text as _text
from schemas.records import DeadLetter, Finding, QADecision, ReviewerResult

# How much of a dead letter's raw payload the audit row keeps (the full bytes stay on the topic).
_DEAD_LETTER_PREVIEW_BYTES = 1024


def _opt_text(value: str | None) -> str | None:
    return None if value is None else _text(value)


def _json(value: Any) -> str:
    # ensure_ascii escapes every non-ASCII character, so jsonb gets \uXXXX; but jsonb refuses
    # \u0000, hence the _text pass on every string that goes in.
    return json.dumps(value, default=str)


def _finding(f: Finding) -> dict[str, Any]:
    span = (
        None
        if f.span is None
        else {"start": f.span.start, "end": f.span.end, "text": _text(f.span.text)}
    )
    return {
        "code": _text(f.code),
        "severity": str(f.severity),
        "message": _text(f.message),
        "span": span,
    }


async def persist_decision(pool: Any, decision: QADecision) -> bool:
    """Record a decision and its feedback, atomically: the qa_decisions row, pipeline_versions'
    and (when the draft names a task) pipeline_tasks' qa_feedback/qa_score/qa_approved, and an
    `aggregation_timeout` audit event for a timed-out decision.

    Returns True when this call recorded it, False when the draft version already had a decision
    (a re-delivery): then nothing is changed, so the first decision of a draft version stands.
    """
    return await persist_decisions(pool, [decision]) == 1


async def persist_decisions(pool: Any, decisions: Sequence[QADecision]) -> int:
    """`persist_decision` for a batch, all or nothing; returns how many were new. The stream's
    sink writes what one poll delivered this way.

    The qa_decisions rows and their pipeline_versions feedback go in one statement for the whole
    batch (rows as parallel arrays; a decision already recorded, or repeated in the batch, is
    skipped: first wins, as one row at a time would). Only tasks' feedback and timeout audit
    events, when the batch has any, take more statements, in one transaction with it. Before,
    every decision cost two or three round trips plus the transaction's two: the sinks' largest
    cost in bench/bench_stream.py's profile."""
    if not decisions:
        return 0
    rows = [_decision_row(d) for d in decisions]
    columns = [list(column) for column in zip(*rows, strict=True)]
    needs_more = any(d.task_id or d.timed_out for d in decisions)
    async with pool.acquire() as conn:
        if not needs_more:
            return len(await conn.fetch(_INSERT_DECISIONS, *columns))
        async with conn.transaction():
            inserted = {row["decision_id"] for row in await conn.fetch(_INSERT_DECISIONS, *columns)}
            new = [d for d in _first_per_id(decisions) if d.decision_id in inserted]
            await _upsert_tasks(conn, [d for d in new if d.task_id])
            timed_out = [d for d in new if d.timed_out]
            if timed_out:
                await conn.execute(
                    _INSERT_AUDITS,
                    [_json(_timeout_payload(d)) for d in timed_out],
                    [f"aggregation_timeout:{d.decision_id}" for d in timed_out],
                )
    return len(inserted)


def _first_per_id(decisions: Sequence[QADecision]) -> list[QADecision]:
    seen: set[str] = set()
    first = []
    for d in decisions:
        if d.decision_id not in seen:
            seen.add(d.decision_id)
            first.append(d)
    return first


def _decision_row(decision: QADecision) -> tuple[Any, ...]:
    reviews = [
        {
            "reviewer": _text(r.reviewer),
            "provider": _text(r.provider),
            "status": _text(r.status),
            "approved": r.approved,
            "score": r.score,
            "feedback": _text(r.feedback),
            "veto": _opt_text(r.veto),
        }
        for r in decision.reviews
    ]
    return (
        decision.decision_id,
        _text(decision.draft_id),
        decision.version,
        _opt_text(decision.task_id),
        decision.approved,
        decision.final_score,
        _text(decision.summary),
        _text(decision.feedback_text),
        # text[] columns travel as JSON text: arrays of arrays must be rectangular in PostgreSQL.
        _json([_text(r) for r in decision.missing_reviewers]),
        _json([_text(v) for v in decision.vetoes]),
        decision.timed_out,
        decision.short_circuited,
        decision.early_decided,
        decision.needs_human_review,
        _text(decision.settings_version),
        decision.decided_at,
        _json(reviews),
        _text(decision.trace_id),
    )


def _timeout_payload(decision: QADecision) -> dict[str, Any]:
    return {
        "decision_id": decision.decision_id,
        "draft_id": _text(decision.draft_id),
        "version": decision.version,
        "missing_reviewers": [_text(r) for r in decision.missing_reviewers],
    }


async def _upsert_tasks(conn: Any, decisions: Sequence[QADecision]) -> None:
    """Each task's feedback, as if the decisions were applied one by one in order: in rounds,
    the n-th decision of every task in round n (one statement each; one round, normally)."""
    rounds: list[list[QADecision]] = []
    count: dict[str, int] = {}
    for d in decisions:
        n = count[d.task_id or ""] = count.get(d.task_id or "", -1) + 1
        if n == len(rounds):
            rounds.append([])
        rounds[n].append(d)
    for batch in rounds:
        await conn.execute(
            _UPSERT_TASKS_FEEDBACK,
            [_text(d.task_id or "") for d in batch],
            [_text(d.draft_id) for d in batch],
            [d.version for d in batch],
            [_text(d.feedback_text) for d in batch],
            [d.final_score for d in batch],
            [d.approved for d in batch],
        )


# One statement per batch: the decisions not recorded yet, then their versions' feedback
# (RETURNING names the new ones; a decision repeated in the batch joins once, its first copy).
_INSERT_DECISIONS = """
WITH batch AS (
    SELECT * FROM unnest(
        $1::uuid[], $2::text[], $3::int[], $4::text[], $5::bool[], $6::float8[], $7::text[],
        $8::text[], $9::text[], $10::text[], $11::bool[], $12::bool[], $13::bool[],
        $14::bool[], $15::text[], $16::timestamptz[], $17::text[], $18::text[]
    ) WITH ORDINALITY AS t(
        decision_id, draft_id, version, task_id, approved, final_score, summary, feedback_text,
        missing_reviewers, vetoes, timed_out, short_circuited, early_decided, needs_human_review,
        settings_version, decided_at, reviews, trace_id, n)
),
inserted AS (
    INSERT INTO qa_decisions (
        decision_id, draft_id, version, task_id, approved, final_score, summary, feedback_text,
        missing_reviewers, vetoes, timed_out, short_circuited, early_decided, needs_human_review,
        settings_version, decided_at, reviews, trace_id)
    SELECT decision_id, draft_id, version, task_id, approved, final_score, summary,
           feedback_text,
           ARRAY(SELECT e FROM jsonb_array_elements_text(missing_reviewers::jsonb) WITH ORDINALITY
                 AS a(e, i) ORDER BY i),
           ARRAY(SELECT e FROM jsonb_array_elements_text(vetoes::jsonb) WITH ORDINALITY
                 AS a(e, i) ORDER BY i),
           timed_out, short_circuited, early_decided, needs_human_review, settings_version,
           decided_at, reviews::jsonb, trace_id
    FROM batch ORDER BY n
    ON CONFLICT DO NOTHING
    RETURNING decision_id
),
feedback AS (
    INSERT INTO pipeline_versions
        (draft_id, version, task_id, qa_feedback, qa_score, qa_approved, decision_id)
    SELECT DISTINCT ON (b.decision_id)
           b.draft_id, b.version, b.task_id, b.feedback_text, b.final_score, b.approved,
           b.decision_id
    FROM batch b JOIN inserted i ON i.decision_id = b.decision_id
    ORDER BY b.decision_id, b.n
    ON CONFLICT (draft_id, version) DO UPDATE SET
        task_id = COALESCE(EXCLUDED.task_id, pipeline_versions.task_id),
        qa_feedback = EXCLUDED.qa_feedback,
        qa_score = EXCLUDED.qa_score,
        qa_approved = EXCLUDED.qa_approved,
        decision_id = EXCLUDED.decision_id,
        updated_at = now()
)
SELECT decision_id::text AS decision_id FROM inserted
"""

_UPSERT_TASKS_FEEDBACK = """
INSERT INTO pipeline_tasks
    (task_id, latest_draft_id, latest_version, qa_feedback, qa_score, qa_approved)
SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::float8[], $6::bool[])
ON CONFLICT (task_id) DO UPDATE SET
    latest_draft_id = EXCLUDED.latest_draft_id,
    latest_version = EXCLUDED.latest_version,
    qa_feedback = EXCLUDED.qa_feedback,
    qa_score = EXCLUDED.qa_score,
    qa_approved = EXCLUDED.qa_approved,
    updated_at = now()
WHERE pipeline_tasks.latest_draft_id IS DISTINCT FROM EXCLUDED.latest_draft_id
   OR pipeline_tasks.latest_version IS NULL
   OR pipeline_tasks.latest_version <= EXCLUDED.latest_version
"""

_INSERT_AUDITS = """
INSERT INTO audit_log (event_type, payload, dedupe_key)
SELECT 'aggregation_timeout', p::jsonb, k FROM unnest($1::text[], $2::text[]) AS t(p, k)
ON CONFLICT (dedupe_key) DO NOTHING
"""


# One statement per batch: rows travel as parallel arrays. A key repeated inside the batch, or
# already in the table, is skipped (first wins); the costs of exactly the new rows go in with
# them (a repeated key's first copy), and the statement returns how many were new.
_INSERT_REVIEWS = """
WITH batch AS (
    SELECT * FROM unnest(
        $1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::float8[],
        $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::text[], $13::int[],
        $14::int[], $15::float8[], $16::float8[], $17::bigint[], $18::int[]
    ) WITH ORDINALITY AS t(d, v, r, p, s, a, sc, f, fi, ve, pa, model, tin, tout, usd, kwh,
                           ms, fallbacks, n)
),
inserted AS (
    INSERT INTO qa_reviews (
        draft_id, version, reviewer, provider, status, approved, score, feedback, findings,
        veto, produced_at)
    SELECT d, v, r, p, s, a, sc, f, fi::jsonb, ve, pa FROM batch ORDER BY n
    ON CONFLICT (draft_id, version, reviewer) DO NOTHING
    RETURNING draft_id, version, reviewer
),
costs AS (
    INSERT INTO cost_logs (
        draft_id, version, reviewer, provider, model, tokens_in, tokens_out, usd, kwh,
        duration_ms, parser_fallbacks)
    SELECT DISTINCT ON (b.d, b.v, b.r)
           b.d, b.v, b.r, b.p, b.model, b.tin, b.tout, b.usd, b.kwh, b.ms, b.fallbacks
    FROM batch b
    JOIN inserted i ON (i.draft_id, i.version, i.reviewer) = (b.d, b.v, b.r)
    ORDER BY b.d, b.v, b.r, b.n
    ON CONFLICT (draft_id, version, reviewer) DO NOTHING
)
SELECT count(*) FROM inserted
"""


async def persist_review(pool: Any, result: ReviewerResult) -> bool:
    """Record one reviewer's result in qa_reviews and its cost in cost_logs, atomically.

    A result is recorded whether or not its draft version is already decided (a late result is
    kept for the record; the decision does not change). The first result per (draft, version,
    reviewer) stands, as in the aggregator. Returns True when this call recorded it.
    """
    return await persist_reviews(pool, [result]) == 1


async def persist_reviews(pool: Any, results: Sequence[ReviewerResult]) -> int:
    """`persist_review` for a batch, in one statement (atomic by itself: no transaction's two
    extra round trips); returns how many were new."""
    if not results:
        return 0
    rows = [
        (
            _text(r.draft_id),
            r.version,
            _text(r.reviewer),
            _text(r.provider),
            _text(r.status),
            r.approved,
            r.score,
            _text(r.feedback),
            _json([_finding(f) for f in r.findings]),
            _opt_text(r.veto),
            r.produced_at,
            _opt_text(r.cost.model),
            r.cost.tokens_in,
            r.cost.tokens_out,
            r.cost.usd,
            r.cost.kwh,
            r.cost.duration_ms,
            r.cost.parser_fallbacks,
        )
        for r in results
    ]
    async with pool.acquire() as conn:
        return int(await conn.fetchval(_INSERT_REVIEWS, *map(list, zip(*rows, strict=True))))


async def persist_dead_letter(pool: Any, dead: DeadLetter) -> bool:
    """Record a dead letter as a `dead_letter` audit event, once per (consumer, source topic,
    partition, offset). The raw payload stays on the dead-letter topic; the row keeps its size
    and the first KiB (base64) for a quick look."""
    return await persist_dead_letters(pool, [dead]) == 1


async def persist_dead_letters(pool: Any, batch: Sequence[DeadLetter]) -> int:
    """`persist_dead_letter` for a batch, in one statement (a flood of bad events is written at
    the pace it is parked); returns how many were new."""
    if not batch:
        return 0
    payloads = [_json(_dead_letter_payload(dead)) for dead in batch]
    keys = [
        _text(
            f"dead_letter:{dead.consumer}:{dead.source_topic}:"
            f"{dead.source_partition}:{dead.source_offset}"
        )
        for dead in batch
    ]
    async with pool.acquire() as conn, conn.transaction():
        rows = await conn.fetch(_INSERT_DEAD_LETTERS, payloads, keys)
    return len(rows)


_INSERT_DEAD_LETTERS = """
INSERT INTO audit_log (event_type, payload, dedupe_key)
SELECT 'dead_letter', p::jsonb, k FROM unnest($1::text[], $2::text[]) AS t(p, k)
ON CONFLICT (dedupe_key) DO NOTHING
RETURNING true
"""


def _dead_letter_payload(dead: DeadLetter) -> dict[str, Any]:
    payload = {
        "source_topic": dead.source_topic,
        "source_partition": dead.source_partition,
        "source_offset": dead.source_offset,
        "consumer": dead.consumer,
        "error_type": dead.error_type,
        "error": dead.error[:2000],
        "key": None if dead.key is None else dead.key.decode("utf-8", "replace"),
        "raw_size": len(dead.raw),
        "raw_preview_b64": base64.b64encode(dead.raw[:_DEAD_LETTER_PREVIEW_BYTES]).decode(),
        "failed_at": dead.failed_at.isoformat(),
    }
    return {str(k): (_text(v) if isinstance(v, str) else v) for k, v in payload.items()}
